import type { CipherClass, Sealed, StoreLogger, ValueCipher } from './ports.js';
import { inRedis, type SharedRedis, TokenStoreError } from './redis-client.js';

/** A sealed value that names the salt its key was derived with. */
export interface SaltedSealed extends Sealed {
  salt: string;
}

/** What a replica found when it compared its salt with the one in Redis. */
export type SaltAgreement = 'agreed' | 'written-back' | 'adopted';

/** Salts seen in values, each costing one scrypt: a few replicas' starts' worth. */
const MAX_SALTS = 16;
const SALT_BYTES = 16;
/** Cookie-signing keys need no shared state: derived from the secret alone, they cannot split. */
const SIGNING_SALT = Buffer.from('toolhost:signing-keys', 'utf8');

function parseSalt(text: string, where: string): Buffer {
  const salt = Buffer.from(text, 'base64');
  if (salt.length !== SALT_BYTES || salt.toString('base64') !== text)
    throw new TokenStoreError(
      `The shared token salt in Redis (${where}) is not a ${SALT_BYTES}-byte base64 value: something other than toolhost wrote it. Delete the key to let the replicas write it again.`,
    );
  return salt;
}

/**
 * The encryption replicas share: one salt in Redis, checked at every read so that the fleet
 * cannot split. A salt found missing (Redis emptied, flushed, evicted) is written back from
 * this replica's; a different one (written by a replica that started while it was missing) is
 * adopted. Either way nothing becomes unreadable: every value names the salt it was sealed
 * with, and any replica holding TOOLHOST_TOKEN_KEY derives that key again. Each value is also
 * bound to its Redis key, so a value copied under another user's key does not open there.
 */
export class SharedCipher {
  private current: ValueCipher;
  private readonly bySalt = new Map<string, ValueCipher>();
  private readonly signing: ValueCipher;
  private checking: Promise<SaltAgreement> | undefined;

  private constructor(
    private readonly redis: SharedRedis,
    private readonly Cipher: CipherClass,
    private readonly secret: string,
    salt: Buffer,
    private readonly saltKey: string,
    private readonly logger?: StoreLogger,
  ) {
    this.current = this.cipherFor(salt.toString('base64'));
    this.signing = new Cipher(secret, SIGNING_SALT);
  }

  static async open(
    redis: SharedRedis,
    Cipher: CipherClass,
    secret: string,
    options: { saltKey?: string; logger?: StoreLogger } = {},
  ): Promise<SharedCipher> {
    if (secret.length < 16)
      throw new TokenStoreError('The token encryption key must be at least 16 characters.');
    const saltKey = options.saltKey ?? 'toolhost:token-salt';
    const candidate = new Cipher(secret);
    await redis.set(saltKey, candidate.salt.toString('base64'), 'NX');
    const salt = await redis.get(saltKey);
    if (!salt) throw new TokenStoreError('The shared token salt vanished from Redis while starting.');
    return new SharedCipher(redis, Cipher, secret, parseSalt(salt, saltKey), saltKey, options.logger);
  }

  /** The salt new values are sealed with (base64). */
  get salt(): string {
    return this.current.salt.toString('base64');
  }

  seal(value: unknown, boundTo: string): SaltedSealed {
    return { salt: this.salt, ...this.current.seal(value, boundTo) };
  }

  /** Throws when the value was sealed with another secret, altered, or copied from another key. */
  open(sealed: SaltedSealed, boundTo: string): unknown {
    return this.cipherFor(sealed.salt).open(sealed, boundTo);
  }

  /** A key for another purpose (signing cookies): the same on every replica with the same secret. */
  derive(purpose: string): Buffer {
    return this.signing.derive(purpose);
  }

  /**
   * Compares this replica's salt with Redis's, writing it back when missing and adopting
   * Redis's when it differs. Reads running at once share one check.
   */
  agree(): Promise<SaltAgreement> {
    this.checking ??= this.reconcile().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async reconcile(): Promise<SaltAgreement> {
    for (;;) {
      const stored = await inRedis(() => this.redis.get(this.saltKey));
      if (stored === this.salt) return 'agreed';
      if (stored !== null) {
        this.current = this.cipherFor(parseSalt(stored, this.saltKey).toString('base64'));
        this.logger?.warn(
          { saltKey: this.saltKey },
          'shared token salt changed in Redis (it was lost and another replica wrote a new one): sealing with it from now on; values sealed before still open',
        );
        return 'adopted';
      }
      const wrote = await inRedis(() => this.redis.set(this.saltKey, this.salt, 'NX'));
      if (wrote === 'OK') {
        this.logger?.warn(
          { saltKey: this.saltKey },
          'shared token salt was missing from Redis (emptied, flushed or evicted: give Redis persistence and maxmemory-policy noeviction); wrote it back',
        );
        return 'written-back';
      }
      // Another replica wrote it between the two commands: read and adopt theirs.
    }
  }

  private cipherFor(salt: string): ValueCipher {
    let cipher = this.bySalt.get(salt);
    if (!cipher) {
      cipher = new this.Cipher(this.secret, parseSalt(salt, 'a sealed value'));
      if (this.bySalt.size >= MAX_SALTS) this.bySalt.delete(this.bySalt.keys().next().value as string);
      this.bySalt.set(salt, cipher);
    }
    return cipher;
  }
}
