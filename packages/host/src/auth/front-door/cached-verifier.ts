import { createHash } from 'node:crypto';
import type { TokenVerifier, Verification } from './token-verifier.js';

export interface CacheOptions {
  /** How long a valid token's verification is reused (default 60 s), never past its `exp`. */
  ttlMs?: number;
  /** How many tokens are remembered (default 10 000); the oldest go first. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * Remembers recent valid tokens, so that a client's every call does not verify a signature or
 * ask the introspection endpoint again. Keyed by the token's digest (the token itself is not
 * kept); only acceptances are remembered, each until the sooner of the TTL and its expiry, so
 * that a cached token is never honoured past its `exp`. Refusals are not cached: a token
 * refused because the issuer was unreachable must be tried again.
 */
export class CachedVerifier implements TokenVerifier {
  private readonly entries = new Map<string, { until: number; verification: Verification }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly inner: TokenVerifier,
    options: CacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  async verify(token: string): Promise<Verification> {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.verification;
    if (hit) this.entries.delete(key);
    const verification = await this.inner.verify(token);
    if (verification.ok && this.ttlMs > 0) {
      const expiresAt = verification.token.expiresAt;
      const until = Math.min(now + this.ttlMs, expiresAt === undefined ? Infinity : expiresAt * 1000);
      if (until > now) this.remember(key, { until, verification });
    }
    return verification;
  }

  /** Forgets every token (a revocation the host heard of). */
  clear(): void {
    this.entries.clear();
  }

  private remember(key: string, entry: { until: number; verification: Verification }): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
  }
}
