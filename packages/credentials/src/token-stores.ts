/**
 * Where users' tokens are kept (memory, the sealed file), without the OAuth client: the
 * package's `./token-stores` export, for a host that starts with no OAuth provider configured
 * and loads the client (`.`) only when one is.
 */
export { EncryptedFileTokenStore, TOKEN_FILE } from './encrypted-file-token-store.js';
export { MemoryTokenStore } from './memory-token-store.js';
