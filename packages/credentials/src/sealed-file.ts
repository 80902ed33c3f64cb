import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TokenStoreError } from './credentials-error.js';
import { TokenCipher } from './token-cipher.js';

type Envelope = { format: string; salt: string; iv: string; tag: string; data: string };

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export interface SealedFileOptions {
  file: string;
  secret: string;
  /** Written into the file and checked on reading: another store's file is refused. */
  format: string;
  /** How messages name the file ("Token file"). */
  label: string;
  /** What such a file is, for the message when it is not one ("token store"). */
  kind: string;
  /** What the current contents are when a write starts. */
  contents: () => unknown;
}

/**
 * One JSON value in a file, AES-256-GCM encrypted with a key derived (scrypt) from
 * TOOLHOST_TOKEN_KEY and a salt kept in the file, written atomically (temp file, fsync,
 * rename) with owner-only permissions, so a crash mid-write leaves the previous file intact.
 * The encrypted token store and the write-safety records each keep one.
 */
export class SealedFile {
  readonly file: string;
  private readonly options: SealedFileOptions;
  // Derived on first need: scrypt costs ~0.1 s, which a host with no file yet should not pay at start.
  private cipher: TokenCipher | undefined;
  private writing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;

  constructor(options: SealedFileOptions) {
    if (options.secret.length < 16)
      throw new TokenStoreError('The token encryption key must be at least 16 characters.');
    this.options = options;
    this.file = options.file;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
  }

  /**
   * The stored value, or undefined when there is no file yet. Only a missing file starts
   * empty: anything else that is not such a file (`null`, `[]`, a half-written file, another
   * key) would otherwise lose every record at the next write, so it is refused, naming the file.
   */
  read(isContents: (value: unknown) => boolean): unknown {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new TokenStoreError(`Cannot read ${this.options.label.toLowerCase()} ${this.file}.`);
    }
    const envelope = this.parseEnvelope(text);
    if (envelope.format !== this.options.format)
      throw new TokenStoreError(`${this.options.label} ${this.file} has an unknown format.`);
    // scrypt costs ~0.1 s: a file read again (another process wrote it) keeps its salt.
    if (this.cipher?.salt.toString('base64') !== envelope.salt)
      this.cipher = new TokenCipher(this.options.secret, Buffer.from(envelope.salt, 'base64'));
    try {
      const value = this.cipher.open(envelope);
      if (!isContents(value)) throw new Error('not such a file');
      return value;
    } catch {
      throw new TokenStoreError(
        `Cannot decrypt ${this.options.label.toLowerCase()} ${this.file}: wrong key, or the file was altered.`,
      );
    }
  }

  private parseEnvelope(text: string): Envelope {
    const { label } = this.options;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new TokenStoreError(`${label} ${this.file} is not JSON; restore it or remove it to start empty.`);
    }
    const fields = ['format', 'salt', 'iv', 'tag', 'data'] as const;
    if (!isRecord(value) || !fields.every((f) => typeof value[f] === 'string')) {
      throw new TokenStoreError(
        `${label} ${this.file} is not a toolhost ${this.options.kind} (expected an object with ${fields.join(', ')}); restore it or remove it to start empty.`,
      );
    }
    return value as Envelope;
  }

  /**
   * Persists the contents as they are when the write starts. Writes are serialized, and the
   * ones asked for while another runs become one (group commit): a burst of changes costs two
   * fsyncs, not one each, and every caller's promise still settles only once its change is on disk.
   * `beforeReplace` is called just before the new file takes the old one's place, and leaves the
   * old in place by throwing (a lock its writer no longer holds); a save joined to one queued
   * keeps that one's, the same lock's where saves are made under one.
   */
  save(beforeReplace: () => void = () => {}): Promise<void> {
    if (this.queued) return this.queued;
    const run = async () => {
      this.queued = undefined;
      await this.writeAtomically(JSON.stringify(this.encrypt(this.options.contents())), beforeReplace);
    };
    const next = this.writing.then(run, run);
    this.queued = next;
    this.writing = next;
    return next;
  }

  /** Waits for pending writes (graceful shutdown). */
  flush(): Promise<void> {
    return this.writing;
  }

  private encrypt(contents: unknown): Envelope {
    this.cipher ??= new TokenCipher(this.options.secret);
    return {
      format: this.options.format,
      salt: this.cipher.salt.toString('base64'),
      ...this.cipher.seal(contents),
    };
  }

  private async writeAtomically(text: string, beforeReplace: () => void): Promise<void> {
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      // Back to back, synchronously: nothing may run between the check and the file's replacing.
      beforeReplace();
      renameSync(temp, this.file);
    } catch (e) {
      await unlink(temp).catch(() => {});
      throw e;
    }
  }
}
