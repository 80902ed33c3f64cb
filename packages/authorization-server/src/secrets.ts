import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret: 256 random bits, URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** How a secret is kept at rest and looked up: its SHA-256 (secrets are random, never guessable). */
export function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

export function sameSecret(given: string, expectedHash: string): boolean {
  const a = Buffer.from(hashOf(given));
  const b = Buffer.from(expectedHash);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The PKCE S256 transform (RFC 7636). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
