import { statSync } from 'node:fs';
import { join } from 'node:path';
import { replacesStored, type StoredConnection, type StoredToken, type TokenStore } from '@toolhost/core';
import { FileLock } from './file-lock.js';
import { FileRefreshLock } from './file-refresh-lock.js';
import { isRecord, SealedFile } from './sealed-file.js';

const FORMAT = 'toolhost-tokens-v1';

type Contents = Record<string, Record<string, StoredToken>>;

/** What tells a file rewritten by another process apart from the one last read or written. */
type Version = string | undefined;

/** No file's version: what memory holds is not the file's (a write failed), and is read again. */
const UNREAD = 'unread';

function versionOf(file: string): Version {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

const isContents = (v: unknown) => isRecord(v) && Object.values(v).every(isRecord);

/** One provider's tokens by user (own keys only). */
function tokenMap(contents: Contents, providerId: string): Record<string, StoredToken> {
  return Object.hasOwn(contents, providerId) ? contents[providerId]! : {};
}

/**
 * A user's token where the file has one: own keys only, so that a user named `constructor` or
 * `toString` is not answered with what every object inherits.
 */
function tokenOf(contents: Contents, providerId: string, userId: string): StoredToken | undefined {
  const users = tokenMap(contents, providerId);
  return Object.hasOwn(users, userId) ? users[userId] : undefined;
}

/** The token file's name in the data directory. */
export const TOKEN_FILE = 'tokens.enc.json';

/**
 * The embedded default: every token in one sealed file (AES-256-GCM with a key derived from a
 * secret in the environment, written atomically, owner-only), so a crash mid-write leaves the
 * previous file intact. Other processes may write it too (`toolhost connections revoke` while a
 * host serves, two hosts on one data directory): every read first checks whether the file
 * changed since (one stat) and reads it again if so, and every change is made under a lock
 * file on the file as it is then, so that no process undoes another's change.
 */
export class EncryptedFileTokenStore implements TokenStore {
  private contents: Contents = {};
  private readonly sealed: SealedFile;
  private readonly lock: FileLock;
  private version: Version;
  /** The refreshes of the processes sharing the file, one per provider and user among them all. */
  readonly refreshLock: FileRefreshLock;

  constructor(file: string, secret: string) {
    this.sealed = new SealedFile({
      file,
      secret,
      format: FORMAT,
      label: 'Token file',
      kind: 'token store',
      contents: () => this.contents,
    });
    this.lock = new FileLock(`${file}.lock`);
    this.refreshLock = new FileRefreshLock(file);
    this.reload();
  }

  /** Reads the file again if another process changed it since this one last saw it. */
  private reload(): void {
    const version = versionOf(this.sealed.file);
    if (version !== undefined && version === this.version) return;
    const stored = this.sealed.read(isContents);
    this.contents = (stored as Contents | undefined) ?? {};
    this.version = version;
  }

  /**
   * A change made on the file as it is now, under the lock, and written before the lock goes.
   * After a write that failed, memory holds a change the file does not: the file is read again
   * first thing next, so that a change made again (the lock runs it again where another process
   * took the lock over meanwhile) is made on the file as that process left it, not on itself.
   */
  private change(apply: () => boolean): Promise<void> {
    return this.lock.run(async (assertHeld) => {
      this.reload();
      if (!apply()) return;
      try {
        await this.sealed.save(assertHeld);
      } catch (e) {
        this.version = UNREAD;
        throw e;
      }
      this.version = versionOf(this.sealed.file);
    });
  }

  get file(): string {
    return this.sealed.file;
  }

  static inDirectory(dataDir: string, secret: string): EncryptedFileTokenStore {
    return new EncryptedFileTokenStore(join(dataDir, TOKEN_FILE), secret);
  }

  async get(providerId: string, userId: string): Promise<StoredToken | undefined> {
    this.reload();
    return tokenOf(this.contents, providerId, userId);
  }

  set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    return this.change(() => this.put(providerId, userId, token));
  }

  async replace(
    providerId: string,
    userId: string,
    token: StoredToken,
    over?: StoredToken,
  ): Promise<boolean> {
    let written = false;
    await this.change(() => {
      written = replacesStored(tokenOf(this.contents, providerId, userId), token, over);
      return written && this.put(providerId, userId, token);
    });
    return written;
  }

  private put(providerId: string, userId: string, token: StoredToken): true {
    // Defined, not assigned: assigning `__proto__` would set the prototype, not a user.
    const users = { ...tokenMap(this.contents, providerId) };
    Object.defineProperty(users, userId, {
      value: token,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    this.contents[providerId] = users;
    return true;
  }

  delete(providerId: string, userId: string): Promise<void> {
    return this.change(() => {
      if (!tokenOf(this.contents, providerId, userId)) return false;
      const { [userId]: _gone, ...rest } = tokenMap(this.contents, providerId);
      this.contents[providerId] = rest;
      return true;
    });
  }

  async list(filter: { userId?: string; providerId?: string } = {}): Promise<StoredConnection[]> {
    this.reload();
    const out: StoredConnection[] = [];
    for (const [providerId, users] of Object.entries(this.contents)) {
      if (filter.providerId !== undefined && filter.providerId !== providerId) continue;
      for (const [userId, token] of Object.entries(users)) {
        if (filter.userId === undefined || filter.userId === userId) out.push({ providerId, userId, token });
      }
    }
    return out;
  }

  /** Waits for pending writes (graceful shutdown). */
  flush(): Promise<void> {
    return this.sealed.flush();
  }
}
