import { createHash } from 'node:crypto';
import type { TokenVerifier, Verification, VerifiedToken } from './token-verifier.js';

export interface CacheOptions {
  /** How long a valid token's verification is reused (default 60 s), never past its `exp`. */
  ttlMs?: number;
  /** How many tokens are remembered (default 10 000); the oldest go first. */
  maxEntries?: number;
  now?: () => number;
  /** Told once of each token accepted (its first use on this replica), not at each re-check. */
  onAccepted?: (token: VerifiedToken) => void;
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
  /** Tokens whose first use was told, until they expire. */
  private readonly announced = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly onAccepted: ((token: VerifiedToken) => void) | undefined;

  constructor(
    private readonly inner: TokenVerifier,
    options: CacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.onAccepted = options.onAccepted;
  }

  async verify(token: string): Promise<Verification> {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.verification;
    if (hit) this.entries.delete(key);
    const verification = await this.inner.verify(token);
    if (verification.ok) this.announce(key, verification.token, now);
    if (verification.ok && this.ttlMs > 0) {
      const expiresAt = verification.token.expiresAt;
      const until = Math.min(now + this.ttlMs, expiresAt === undefined ? Infinity : expiresAt * 1000);
      if (until > now) this.remember(key, { until, verification });
    }
    return verification;
  }

  /** Tells of a token's first acceptance; remembered until it expires (bounded as the cache). */
  private announce(key: string, token: VerifiedToken, now: number): void {
    if (!this.onAccepted) return;
    const known = this.announced.get(key);
    if (known !== undefined && known > now) return;
    if (this.announced.size >= this.maxEntries) {
      const oldest = this.announced.keys().next();
      if (!oldest.done) this.announced.delete(oldest.value);
    }
    this.announced.set(key, token.expiresAt === undefined ? now + 3_600_000 : token.expiresAt * 1000);
    this.onAccepted(token);
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
