import type { TokenCipher } from '../auth/token-cipher.js';

/** How a record (a preview, a stored outcome) is written into an `ExpiringRecords` value. */
export interface RecordCodec {
  encode(value: unknown): string;
  decode(text: string): unknown;
}

/** In memory nothing leaves the process: JSON as it is. */
export const plainRecords: RecordCodec = {
  encode: (value) => JSON.stringify(value),
  decode: (text) => JSON.parse(text) as unknown,
};

/**
 * Sealed with the tokens' key where records leave the process (Redis): they hold request
 * bodies and upstream answers, which are the users' data.
 */
export function sealedRecords(cipher: TokenCipher): RecordCodec {
  return {
    encode: (value) => JSON.stringify(cipher.seal(value)),
    decode: (text) => cipher.open(JSON.parse(text)),
  };
}
