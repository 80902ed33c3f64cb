import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  scryptSync,
} from 'node:crypto';

import type { Sealed } from '@toolhost/redis-store';

export type { Sealed };

/**
 * Keys this process derived, by secret and salt. scrypt costs ~0.1 s of CPU by design, and a
 * process derives the same key again and again: every replica store opened (its salt and its
 * signing key), a sealed file read again, each host an embedder starts. Bounded to a few
 * secrets' salts; the oldest goes first.
 */
const derivedKeys = new Map<string, Buffer>();
const MAX_DERIVED_KEYS = 32;

function deriveKey(secret: string, salt: Buffer): Buffer {
  const id = `${createHash('sha256').update(secret).digest('base64')}:${salt.toString('base64')}`;
  let key = derivedKeys.get(id);
  if (!key) {
    key = scryptSync(secret, salt, 32);
    if (derivedKeys.size >= MAX_DERIVED_KEYS) derivedKeys.delete(derivedKeys.keys().next().value!);
    derivedKeys.set(id, key);
  }
  return key;
}

/**
 * AES-256-GCM with a key derived (scrypt) from TOOLHOST_TOKEN_KEY and a stored salt: the one
 * encryption of tokens at rest, whichever store keeps them (file or Redis).
 */
export class TokenCipher {
  private readonly key: Buffer;

  constructor(
    secret: string,
    readonly salt: Buffer = randomBytes(16),
  ) {
    if (secret.length < 16) throw new Error('The token encryption key must be at least 16 characters.');
    this.key = deriveKey(secret, salt);
  }

  /**
   * A key for another purpose (signing cookies), derived from this one: the same on every
   * replica that shares the secret and salt, and telling nothing about the cipher's key.
   */
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(`toolhost:${purpose}`).digest();
  }

  /**
   * `boundTo` (GCM's additional data) ties the value to where it is kept: the same bytes
   * copied under another key (another user's) no longer open there.
   */
  seal(value: unknown, boundTo?: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    if (boundTo !== undefined) cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return {
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }

  /** The parsed value; throws on a wrong key, altered data or another `boundTo` (GCM authenticates all three). */
  open(sealed: Sealed, boundTo?: string): unknown {
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    if (boundTo !== undefined) decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as unknown;
  }
}
