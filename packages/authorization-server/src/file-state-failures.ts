import { ToolError } from '@toolhost/core';

/** Where a file store tells the operator that its file cannot be used, and that it can again (pino's form). */
export interface StateStoreLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/**
 * What failed: reading the file, taking the lock beside it, writing it, or flushing its
 * directory once it was replaced (the change is made then: only its surviving a power loss is in doubt).
 */
export type FileStep = 'read' | 'lock' | 'write' | 'flush';

type Side = 'read' | 'change' | 'flush';

const SIDE: Record<FileStep, Side> = { read: 'read', lock: 'change', write: 'change', flush: 'flush' };

const FOR_CLIENT: Record<Side, string> = {
  read: "The authorization server cannot read its state now (its store's file); try again shortly.",
  change: "The authorization server cannot keep this change now (its store's file); try again shortly.",
  flush: "The authorization server cannot keep this change now (its store's file); try again shortly.",
};

const WHAT: Record<FileStep, string> = {
  read: 'read its state file',
  lock: 'take the lock on its state file',
  write: 'write its state file',
  flush: 'flush the directory of its state file',
};

const UNTIL: Record<Side, string> = {
  read: 'until it can, its endpoints and token checks answer 503 temporarily_unavailable',
  change:
    'until it can, registrations, sign-ins, token issues and refreshes, and revocations answer 503 temporarily_unavailable',
  flush: 'changes are still made, but a power loss may undo the latest of them',
};

const AGAIN: Record<FileStep, string> = {
  read: 'reads its state file',
  lock: 'takes the lock on its state file',
  write: 'writes its state file',
  flush: 'flushes the directory of its state file',
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
  private readonly failing = new Map<Side, { step: FileStep; cause: string; count: number }>();

  constructor(
    private readonly file: string,
    private readonly log?: StateStoreLog,
  ) {}

  /** The error to answer for `error`, met at `step` (logged where it starts a failure). */
  failed(step: FileStep, error: unknown): ToolError {
    const side = SIDE[step];
    // The system's reason (ENOSPC, EROFS, EACCES...), not another package's error code.
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    const code = errno && /^E[A-Z]+$/.test(errno) ? errno : undefined;
    const cause = `${step}:${code ?? ''}`;
    const now = this.failing.get(side);
    if (now?.cause === cause) now.count += 1;
    else {
      this.failing.set(side, { step, cause, count: 1 });
      const reason = error instanceof Error ? error.message : String(error);
      this.log?.warn(
        { file: this.file, step, ...(code ? { code } : {}) },
        `The authorization server cannot ${WHAT[step]} ${this.file} (${reason}); ${UNTIL[side]}`,
      );
    }
    return new ToolError({ code: 'store_unavailable', retryable: true, message: FOR_CLIENT[side] });
  }

  /**
   * `step` went through: where it, or a step it stands for, was failing, the log is told, once.
   * Only the step that failed can tell that it works again: a read says nothing of the lock, and
   * a change that found nothing to write took the lock but says nothing of a full disk. A write
   * took the lock on its way. (Told on any success, a full disk would be told as ended, and
   * again as begun, at each read between two writes.)
   */
  succeeded(step: FileStep): void {
    const side = SIDE[step];
    const ended = this.failing.get(side);
    if (!ended || (ended.step === 'write' && step === 'lock')) return;
    this.failing.delete(side);
    this.log?.info(
      { file: this.file, failures: ended.count },
      `The authorization server ${AGAIN[step]} ${this.file} again (${ended.count} failed meanwhile)`,
    );
  }
}
