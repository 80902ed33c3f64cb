import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { StoredConnection, StoredToken, TokenStore } from '@toolhost/core';
import { HostError, hasCode } from '../host-error.js';
import { TokenCipher } from './token-cipher.js';

const FORMAT = 'toolhost-tokens-v1';

type Envelope = { format: string; salt: string; iv: string; tag: string; data: string };
type Contents = Record<string, Record<string, StoredToken>>;

export class TokenStoreError extends HostError {
  readonly code = 'token_store_invalid' as const;
  static override isInstance = hasCode<TokenStoreError>('token_store_invalid');
  override readonly name = 'TokenStoreError';
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseEnvelope(text: string, file: string): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TokenStoreError(`Token file ${file} is not JSON; restore it or remove it to start empty.`);
  }
  const fields = ['format', 'salt', 'iv', 'tag', 'data'] as const;
  if (!isRecord(value) || !fields.every((f) => typeof value[f] === 'string')) {
    throw new TokenStoreError(
      `Token file ${file} is not a toolhost token store (expected an object with ${fields.join(', ')}); restore it or remove it to start empty.`,
    );
  }
  return value as Envelope;
}

/**
 * The embedded default: every token in one file, AES-256-GCM encrypted with a key derived
 * (scrypt) from a secret in the environment, written atomically (temp file, fsync, rename)
 * with owner-only permissions, so a crash mid-write leaves the previous file intact.
 */
export class EncryptedFileTokenStore implements TokenStore {
  private contents: Contents = {};
  private writing: Promise<void> = Promise.resolve();
  private readonly cipher: TokenCipher;

  constructor(
    readonly file: string,
    secret: string,
  ) {
    if (secret.length < 16)
      throw new TokenStoreError('The token encryption key must be at least 16 characters.');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    let envelope: Envelope | undefined;
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new TokenStoreError(`Cannot read token file ${file}.`);
    }
    // Only a missing file starts an empty store: anything else that is not a store (`null`,
    // `[]`, a half-written file) would otherwise lose every token at the next write.
    if (text !== undefined) envelope = parseEnvelope(text, file);
    this.cipher = new TokenCipher(secret, envelope ? Buffer.from(envelope.salt, 'base64') : randomBytes(16));
    if (envelope) this.contents = this.decrypt(envelope);
  }

  static inDirectory(dataDir: string, secret: string): EncryptedFileTokenStore {
    return new EncryptedFileTokenStore(join(dataDir, 'tokens.enc.json'), secret);
  }

  private decrypt(envelope: Envelope): Contents {
    if (envelope.format !== FORMAT)
      throw new TokenStoreError(`Token file ${this.file} has an unknown format.`);
    try {
      const contents = this.cipher.open(envelope);
      if (!isRecord(contents) || !Object.values(contents).every(isRecord)) throw new Error('not a store');
      return contents as Contents;
    } catch {
      throw new TokenStoreError(
        `Cannot decrypt token file ${this.file}: wrong key, or the file was altered.`,
      );
    }
  }

  private encrypt(contents: Contents): Envelope {
    return { format: FORMAT, salt: this.cipher.salt.toString('base64'), ...this.cipher.seal(contents) };
  }

  /** Writes are serialized: each persists the state as of its turn. */
  private persist(): Promise<void> {
    const run = async () => {
      const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(JSON.stringify(this.encrypt(this.contents)));
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temp, this.file);
      } catch (e) {
        await unlink(temp).catch(() => {});
        throw e;
      }
    };
    this.writing = this.writing.then(run, run);
    return this.writing;
  }

  async get(providerId: string, userId: string): Promise<StoredToken | undefined> {
    return this.contents[providerId]?.[userId];
  }

  async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    this.contents[providerId] = { ...this.contents[providerId], [userId]: token };
    await this.persist();
  }

  async delete(providerId: string, userId: string): Promise<void> {
    if (!this.contents[providerId]?.[userId]) return;
    const { [userId]: _gone, ...rest } = this.contents[providerId];
    this.contents[providerId] = rest;
    await this.persist();
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
    return this.writing;
  }
}
