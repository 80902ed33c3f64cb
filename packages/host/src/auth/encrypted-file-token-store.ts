import { join } from 'node:path';
import type { StoredConnection, StoredToken, TokenStore } from '@toolhost/core';
import { isRecord, SealedFile, TokenStoreError } from './sealed-file.js';

export { TokenStoreError };

const FORMAT = 'toolhost-tokens-v1';

type Contents = Record<string, Record<string, StoredToken>>;

/**
 * The embedded default: every token in one sealed file (AES-256-GCM with a key derived from a
 * secret in the environment, written atomically, owner-only), so a crash mid-write leaves the
 * previous file intact.
 */
export class EncryptedFileTokenStore implements TokenStore {
  private contents: Contents = {};
  private readonly sealed: SealedFile;

  constructor(file: string, secret: string) {
    this.sealed = new SealedFile({
      file,
      secret,
      format: FORMAT,
      label: 'Token file',
      kind: 'token store',
      contents: () => this.contents,
    });
    const stored = this.sealed.read((v) => isRecord(v) && Object.values(v).every(isRecord));
    if (stored !== undefined) this.contents = stored as Contents;
  }

  get file(): string {
    return this.sealed.file;
  }

  static inDirectory(dataDir: string, secret: string): EncryptedFileTokenStore {
    return new EncryptedFileTokenStore(join(dataDir, 'tokens.enc.json'), secret);
  }

  async get(providerId: string, userId: string): Promise<StoredToken | undefined> {
    return this.contents[providerId]?.[userId];
  }

  async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    this.contents[providerId] = { ...this.contents[providerId], [userId]: token };
    await this.sealed.save();
  }

  async delete(providerId: string, userId: string): Promise<void> {
    if (!this.contents[providerId]?.[userId]) return;
    const { [userId]: _gone, ...rest } = this.contents[providerId];
    this.contents[providerId] = rest;
    await this.sealed.save();
  }

  async list(filter: { userId?: string; providerId?: string } = {}): Promise<StoredConnection[]> {
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
