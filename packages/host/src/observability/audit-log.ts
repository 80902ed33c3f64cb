import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { serviceToken } from '@toolhost/core';
import { quoted } from '@toolhost/engine/internal';
import type Pino from 'pino';
import { ConfigError } from '../config/load-config.js';
import { replicaId } from '../logger.js';

const require = createRequire(import.meta.url);
// Required, not imported: see docs/performance.md, "CommonJS packages at start".
const pino = require('pino') as typeof Pino;

/** Where the host's container holds the audit log, when the operator turned it on. */
export const AUDIT_LOG = serviceToken<AuditLog>('host.audit-log');

/**
 * What an audit line records: a tool call, a request refused before any call, or a step of
 * the host's own authorization server (sign-in, consent, token issue, refresh, revocation,
 * refusal; its outcome names which).
 */
export interface AuditEntry {
  event: 'tool_call' | 'refusal' | 'authorization';
  /** The user the request was made as; absent when unknown (unauthenticated). */
  user?: string;
  /** The client's name (`clientInfo.name`), when known. */
  client?: string;
  /** The tool called (canonical name for a plugin tool, the name for the host's own). */
  tool?: string;
  /** The tool a `preview_tool_call` previewed. */
  target?: string;
  /**
   * `ok`, the error code (`upstream_rate_limited`, `preview_expired`, …), or why a request was
   * refused (`unauthenticated`, `another_users_session`, `confirmation_declined`,
   * `too_many_sessions`).
   */
  outcome: string;
  /** The upstream's HTTP status, where a request reached it. */
  status?: number;
  /** The call's arguments, only with `audit.includeArguments`. */
  arguments?: unknown;
  /** How the person signed in to the own authorization server (`access-token`, `upstream`, `local-user`). */
  signedInWith?: string;
}

type Destination = ReturnType<typeof pino.destination>;

/**
 * Client-chosen text (a client's name, a tool name) is kept to this many characters, and the
 * arguments to this many of JSON: a line stays a line a person reads, and no client can grow
 * the log by megabytes a call.
 */
const MAX_FIELD_CHARS = 256;
const MAX_ARGUMENTS_CHARS = 16_384;

/** `text` cut at `max` characters, with a marker saying how much was left out. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}…[truncated: ${text.length} characters in all]`;
}

/** The arguments as given, or, past the bound, the start of their JSON and their size. */
function argumentsField(args: unknown): { arguments: unknown } {
  let json: string | undefined;
  try {
    json = JSON.stringify(args);
  } catch {
    return { arguments: '[not serializable]' };
  }
  if (json === undefined || json.length <= MAX_ARGUMENTS_CHARS) return { arguments: args };
  return { arguments: bounded(json, MAX_ARGUMENTS_CHARS) };
}

/**
 * JSON leaves U+2028, U+2029 and the C1 controls (U+0085, a line break to some readers) raw:
 * escaped, so that a line reader never sees one audit line as two.
 */
function oneLine(json: string): string {
  return json.replace(
    /[\u0080-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The operator's audit log: one JSON line per tool call and per refusal, with the time, the
 * replica, the user, the client, the tool, the outcome and the upstream status; never
 * arguments or bodies unless `includeArguments`. Written to its own destination (a file, or
 * standard output), apart from the diagnostic logs on stderr, so that it can be kept and
 * shipped on its own terms.
 */
export class AuditLog {
  private readonly replica = replicaId();

  constructor(
    private readonly destination: Pick<Destination, 'write'> & { flushSync?: () => void },
    readonly includeArguments = false,
  ) {}

  record(entry: AuditEntry): void {
    const { arguments: args, ...rest } = entry;
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rest))
      fields[key] = typeof value === 'string' ? bounded(value, MAX_FIELD_CHARS) : value;
    const line = {
      time: new Date().toISOString(),
      replica: this.replica,
      ...fields,
      ...(this.includeArguments && args !== undefined ? argumentsField(args) : {}),
    };
    this.destination.write(`${oneLine(JSON.stringify(line))}\n`);
  }

  /** Writes what is held (at shutdown). */
  flush(): void {
    try {
      this.destination.flushSync?.();
    } catch {
      // Not yet open, or already ended: nothing held.
    }
  }
}

/** A token's first use at the front door as an audit line (a sign-in), where the log is on. */
export function signInAudit(audit: Pick<AuditLog, 'record'> | undefined) {
  if (!audit) return {};
  return {
    onSignIn: (token: { subject: string; clientId?: string }) =>
      audit.record({
        event: 'authorization',
        outcome: 'sign_in',
        user: token.subject,
        ...(token.clientId ? { client: token.clientId } : {}),
      }),
  };
}

/**
 * The audit log the configuration asks for (`audit.log` or TOOLHOST_AUDIT_LOG: `stdout`, or a
 * file appended to, relative to the config file's directory), or undefined.
 */
export function openAuditLog(
  audit: { log?: string; includeArguments?: boolean } | undefined,
  env: NodeJS.ProcessEnv,
  configDir: string,
): AuditLog | undefined {
  const where = env.TOOLHOST_AUDIT_LOG?.trim() || audit?.log;
  if (!where) return undefined;
  const includeArguments = audit?.includeArguments ?? false;
  if (where === 'stdout') return new AuditLog(pino.destination({ fd: 1, sync: true }), includeArguments);
  const file = resolve(configDir, where);
  try {
    // Owner-only: the lines name users, clients and what they did.
    const log = new AuditLog(
      pino.destination({ dest: file, append: true, mkdir: true, sync: true, mode: 0o600 }),
      includeArguments,
    );
    chmodSync(file, 0o600);
    return log;
  } catch (e) {
    throw new ConfigError(
      `The audit log ${quoted(file)} cannot be opened (${(e as Error).message}); check audit.log (TOOLHOST_AUDIT_LOG) and that ${dirname(file)} is writable.`,
    );
  }
}
