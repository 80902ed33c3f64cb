/**
 * Where users' tokens are kept (memory, the sealed file), and whether a stored expiry is one a
 * Date can hold, without the OAuth client: the
 * package's `./token-stores` export, for a host that starts with no OAuth provider configured
 * and loads the client (`.`) only when one is.
 */
export { EncryptedFileTokenStore, TOKEN_FILE } from './encrypted-file-token-store.js';
export { MemoryTokenStore } from './memory-token-store.js';
export { withinDateRange } from './token-expiry.js';
