/** The grants this server issues tokens under. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/**
 * What a client registered before its grant types were kept may use: both grants, as every
 * client was given then. Its people stay signed in; it is held to what it asks for once it
 * registers again.
 */
export const EARLIER_CLIENT_GRANT_TYPES: readonly GrantType[] = GRANT_TYPES;

const isGrantType = (value: unknown): value is GrantType =>
  (GRANT_TYPES as readonly unknown[]).includes(value);

/**
 * The grant types a client's metadata (a registration or a metadata document) gives it, with
 * RFC 7591's defaults (`grant_types` ["authorization_code"], `response_types` ["code"]) and its
 * consistency rule applied as oidc-provider applies it: the `code` response type brings the
 * authorization code grant, which is dropped without it. `strict` (a registration made here)
 * refuses a grant or response type this server does not issue; a document, written for every
 * server it is presented to, has those left out instead. The problem is thrown as an Error.
 */
export function grantTypesOf(metadata: Record<string, unknown>, strict: boolean): GrantType[] {
  const asked = listOf(metadata.grant_types, 'grant_types', ['authorization_code']);
  const responseTypes = listOf(metadata.response_types, 'response_types', ['code']);
  if (strict && !asked.every(isGrantType))
    throw new Error(`grant_types may hold only ${GRANT_TYPES.join(' and ')}`);
  if (strict && responseTypes.some((r) => r !== 'code')) throw new Error('response_types may hold only code');
  const code = responseTypes.includes('code');
  return GRANT_TYPES.filter((g) => (g === 'authorization_code' ? code : asked.includes(g)));
}

function listOf(value: unknown, name: string, fallback: string[]): unknown[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value)) throw new Error(`${name} must be an array of strings`);
  return value;
}
