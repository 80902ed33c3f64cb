import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigError } from '../config/load-config.js';

/**
 * A user id as telemetry may carry it: the first 16 hex digits of its HMAC-SHA256 under a
 * secret key. Traces leave the host for a vendor's backend; the id itself (often an e-mail
 * address) must not, yet one user's calls should still be found together. Unkeyed, a hash of
 * a guessable id (an address, a name) is undone by hashing the guesses.
 */
export function hashUserId(userId: string, key: Buffer): string {
  return createHmac('sha256', key).update(userId).digest('hex').slice(0, 16);
}

/**
 * The key of those hashes: TOOLHOST_TELEMETRY_KEY where the operator set one (or
 * `telemetry.userIdKey`), else one derived from TOOLHOST_TOKEN_KEY (HKDF, so that it tells
 * nothing about the key that encrypts tokens), the same on every replica and after a restart;
 * without either, a random key of this process (ids match only within its life).
 */
export function telemetryKey(configured: string | undefined, env: NodeJS.ProcessEnv): Buffer {
  const own = env.TOOLHOST_TELEMETRY_KEY || configured;
  if (own !== undefined && own.length < 16)
    throw new ConfigError('TOOLHOST_TELEMETRY_KEY (telemetry.userIdKey) must be 16 characters or more.');
  if (own) return Buffer.from(own, 'utf8');
  const tokenKey = env.TOOLHOST_TOKEN_KEY;
  if (tokenKey) {
    return Buffer.from(hkdfSync('sha256', tokenKey, 'toolhost', 'toolhost:telemetry-user-id', 32));
  }
  return randomBytes(32);
}
