import type { ErrorObject } from './ajv-instance.js';
import { pointerKeys } from './json-pointer.js';
import { cut, escapeUnseen } from './quoted.js';

/** Turns an Ajv instance path (`/inputs/0/eventName`) into `inputs[0].eventName`. */
function readablePath(instancePath: string): string {
  return pointerKeys(instancePath).reduce(
    (acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg),
    '',
  );
}

function join(base: string, path: string): string {
  if (!path) return base;
  if (!base) return path;
  return path.startsWith('[') ? `${base}${path}` : `${base}.${path}`;
}

export interface ValidationProblem {
  /** Where the problem is, e.g. `crm_object_id` or `request_body.inputs[0].eventName`. */
  at: string;
  message: string;
}

/**
 * Plain-language problems from Ajv errors, each naming where it is and what was expected.
 * `root` prefixes every location (`request_body` for bodies; empty for tool arguments).
 */
/**
 * For a value that matches none of an anyOf/oneOf's alternatives, Ajv reports every branch's
 * complaints ("event is required; anonymousId is required; groupId is required …"). Keeps only
 * those of the branch that came closest (fewest complaints), and notes which it was.
 */
function narrowAlternatives(errors: readonly ErrorObject[]): {
  errors: ErrorObject[];
  closest: Map<ErrorObject, { branch: number; of: number }>;
} {
  let out = [...errors];
  const closest = new Map<ErrorObject, { branch: number; of: number }>();
  for (const alt of errors) {
    if (alt.keyword !== 'anyOf' && alt.keyword !== 'oneOf') continue;
    // A oneOf that failed because several branches matched has no branch complaints to narrow.
    if ((alt.params as { passingSchemas?: unknown }).passingSchemas) continue;
    const prefix = `${alt.schemaPath}/`;
    const branches = new Map<number, ErrorObject[]>();
    for (const e of out) {
      if (!e.schemaPath.startsWith(prefix)) continue;
      const branch = Number(e.schemaPath.slice(prefix.length).split('/')[0]);
      if (!branches.has(branch)) branches.set(branch, []);
      branches.get(branch)!.push(e);
    }
    if (branches.size < 2) continue;
    const [best, keep] = [...branches].sort((a, b) => a[1].length - b[1].length || a[0] - b[0])[0]!;
    out = out.filter((e) => e !== alt && (!e.schemaPath.startsWith(prefix) || keep.includes(e)));
    // The summary first, then what the closest shape lacks.
    out.splice(out.indexOf(keep[0]!), 0, alt);
    closest.set(alt, { branch: best, of: branches.size });
  }
  return { errors: out, closest };
}

export function describeValidationErrors(all: readonly ErrorObject[], root = ''): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
  const { errors, closest } = narrowAlternatives(all);
  for (const e of errors) {
    const at = join(root, readablePath(e.instancePath));
    const p = e.params as Record<string, unknown>;
    let problem: ValidationProblem;
    switch (e.keyword) {
      case 'required':
        problem = { at: join(at, String(p.missingProperty)), message: 'is required but missing' };
        break;
      case 'dependencies':
        problem = {
          at: join(at, String(p.missingProperty)),
          message: `is required when '${String(p.property)}' is given`,
        };
        break;
      case 'additionalProperties':
        problem = { at: join(at, String(p.additionalProperty)), message: 'is not a known property' };
        break;
      case 'type':
        problem = { at, message: `must be of type ${String(p.type)}` };
        break;
      case 'enum':
        problem = {
          at,
          message: `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        };
        break;
      case 'const':
        problem = { at, message: `must equal ${JSON.stringify(p.allowedValue)}` };
        break;
      case 'format':
        problem = { at, message: `must be a valid ${String(p.format)}${formatHint(String(p.format))}` };
        break;
      case 'anyOf':
      case 'oneOf': {
        const near = closest.get(e);
        problem = {
          at,
          message: near
            ? `matches none of the ${near.of} allowed shapes; the closest, shape ${near.branch + 1}, lacks what follows`
            : `does not match any of the allowed shapes (${e.keyword})`,
        };
        break;
      }
      default:
        problem = { at, message: e.message ?? `fails ${e.keyword}` };
    }
    // Where, as a caller's keys wrote it: unseen characters escaped, at most 256 characters (a
    // request_body's key of 100,000 made a message as long, a \r in one rewrote the line).
    problem.at = escapeUnseen(cut(problem.at, 256));
    const key = `${problem.at}|${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

function formatHint(format: string): string {
  switch (format) {
    case 'date':
      return ' (YYYY-MM-DD)';
    case 'date-time':
      return ' (ISO 8601, e.g. 2024-01-31T12:00:00Z)';
    case 'uuid':
      return ' (e.g. 123e4567-e89b-12d3-a456-426614174000)';
    default:
      return '';
  }
}
