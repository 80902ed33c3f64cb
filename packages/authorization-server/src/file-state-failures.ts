import { ToolError } from '@toolhost/core';

/** Where a file store tells the operator that its file cannot be used, and that it can again (pino's form). */
export interface StateStoreLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** What failed: reading the file, taking the lock beside it, or writing it. */
export type FileStep = 'read' | 'lock' | 'write';

type Side = 'read' | 'change';

const FOR_CLIENT: Record<Side, string> = {
  read: "The authorization server cannot read its state now (its store's file); try again shortly.",
  change: "The authorization server cannot keep this change now (its store's file); try again shortly.",
};

const WHAT: Record<FileStep, string> = {
  read: 'read its state file',
  lock: 'take the lock on its state file',
  write: 'write its state file',
};

/**
 * A file store's failures as clients and the operator are told them. A client is told
 * `store_unavailable`, as when Redis is away (the host answers it 503 temporarily_unavailable,
 * for the client to try again): a full disk or a lock held by another host is no verdict on a
 * client or its tokens, and what the server's disk says is not the client's to read. The log is
 * told what failed, naming the file and the system's reason, once while the same failure lasts
 * (a full disk would otherwise be a line per request, on that disk) and once when it ends.
 */
export class FileStoreFailures {
  private readonly failing = new Map<Side, { cause: string; count: number }>();

  constructor(
    private readonly file: string,
    private readonly log?: StateStoreLog,
  ) {}

  /** The error to answer for `error`, met at `step` (logged where it starts a failure). */
  failed(step: FileStep, error: unknown): ToolError {
    const side: Side = step === 'read' ? 'read' : 'change';
    // The system's reason (ENOSPC, EROFS, EACCES...), not another package's error code.
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    const code = errno && /^E[A-Z]+$/.test(errno) ? errno : undefined;
    const cause = `${step}:${code ?? ''}`;
    const now = this.failing.get(side);
    if (now?.cause === cause) now.count += 1;
    else {
      this.failing.set(side, { cause, count: 1 });
      const reason = error instanceof Error ? error.message : String(error);
      this.log?.warn(
        { file: this.file, step, ...(code ? { code } : {}) },
        `The authorization server cannot ${WHAT[step]} ${this.file} (${reason}); until it can, ${side === 'read' ? 'its endpoints and token checks' : 'registrations, sign-ins, token issues and refreshes, and revocations'} answer 503 temporarily_unavailable`,
      );
    }
    return new ToolError({ code: 'store_unavailable', retryable: true, message: FOR_CLIENT[side] });
  }

  /** A read of the file, or a write, went through: where they were failing, the log is told. */
  succeeded(side: Side): void {
    const ended = this.failing.get(side);
    if (!ended) return;
    this.failing.delete(side);
    this.log?.info(
      { file: this.file, failures: ended.count },
      `The authorization server ${side === 'read' ? 'reads' : 'writes'} its state file ${this.file} again (${ended.count} failed meanwhile)`,
    );
  }
}
