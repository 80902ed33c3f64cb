import { createCipheriv, createDecipheriv, randomBytes, randomUUID, type webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK } from 'jose';
import type { StateStore } from './state-store.js';

const KEY_RECORD = 'signing-key';
export const SIGNING_ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: webcrypto.CryptoKey;
  publicJwk: JWK;
  /** The store's record it was read from (sealed where a seal key is given). */
  record: string;
}

/**
 * The key that signs access tokens, made once and shared through the store: the first
 * replica to start writes it (set-if-absent), the others read that one, so a token from any
 * replica verifies on every replica. With a seal key (from the operator's secret) the private
 * half is encrypted at rest. `held`, the key a replica signs with, is what it writes back
 * where the store lost the record, and is answered again while the record is unchanged.
 */
export async function loadSigningKey(
  store: StateStore,
  sealKey?: Buffer,
  held?: SigningKey,
): Promise<SigningKey> {
  let saved = await store.get(KEY_RECORD);
  if (saved === undefined) {
    await store.setIfAbsent(KEY_RECORD, held?.record ?? seal(await newPrivateJwk(), sealKey));
    saved = await store.get(KEY_RECORD);
    if (saved === undefined)
      throw new Error('The authorization server could not keep its signing key in its store');
  }
  if (saved === held?.record) return held;
  const jwk = JSON.parse(unseal(saved, sealKey)) as JWK & { kid: string };
  const privateKey = (await importJWK(jwk, SIGNING_ALGORITHM)) as webcrypto.CryptoKey;
  const { d: _private, ...publicJwk } = jwk;
  return { kid: jwk.kid, privateKey, publicJwk: { ...publicJwk, use: 'sig' }, record: saved };
}

async function newPrivateJwk(): Promise<string> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  return JSON.stringify({ ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM });
}

export function keySetOf(key: SigningKey): JSONWebKeySet {
  return { keys: [key.publicJwk] };
}

function seal(text: string, key?: Buffer): string {
  if (!key) return text;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.subarray(0, 32), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `sealed:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

function unseal(saved: string, key?: Buffer): string {
  if (!saved.startsWith('sealed:')) return saved;
  if (!key) throw new Error("The authorization server's signing key is sealed, and no seal key was given");
  const raw = Buffer.from(saved.slice('sealed:'.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key.subarray(0, 32), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(
      "The authorization server's signing key does not open with this seal key: every replica needs the same secret",
    );
  }
}
