import type { ErrorObject } from './ajv-instance.js';

/** Turns an Ajv instance path (`/inputs/0/eventName`) into `inputs[0].eventName`. */
function readablePath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
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
export function describeValidationErrors(errors: readonly ErrorObject[], root = ''): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
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
      case 'oneOf':
        problem = { at, message: `does not match any of the allowed shapes (${e.keyword})` };
        break;
      default:
        problem = { at, message: e.message ?? `fails ${e.keyword}` };
    }
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
