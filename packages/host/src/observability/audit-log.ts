import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { serviceToken } from '@toolhost/core';
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
}

type Destination = ReturnType<typeof pino.destination>;

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
    const line = {
      time: new Date().toISOString(),
      replica: this.replica,
      ...rest,
      ...(this.includeArguments && args !== undefined ? { arguments: args } : {}),
    };
    this.destination.write(`${JSON.stringify(line)}\n`);
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
    return new AuditLog(
      pino.destination({ dest: file, append: true, mkdir: true, sync: true }),
      includeArguments,
    );
  } catch (e) {
    throw new ConfigError(
      `The audit log ${file} cannot be opened (${(e as Error).message}); check audit.log (TOOLHOST_AUDIT_LOG) and that ${dirname(file)} is writable.`,
    );
  }
}
