/** What seals a record where it leaves the process (@toolhost/redis-store's SharedCipher, the tokens' key). */
export interface Sealer {
  seal(value: unknown, key: string): unknown;
  open(sealed: unknown, key: string): unknown;
}

/** How a record (a preview, a stored outcome) is written into an `ExpiringRecords` value. */
export interface RecordCodec {
  /** `key` is the record's name: a sealed record opens only under it. */
  encode(value: unknown, key: string): string;
  decode(text: string, key: string): unknown;
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
export function sealedRecords(cipher: Sealer): RecordCodec {
  return {
    encode: (value, key) => JSON.stringify(cipher.seal(value, key)),
    decode: (text, key) => cipher.open(JSON.parse(text), key),
  };
}
