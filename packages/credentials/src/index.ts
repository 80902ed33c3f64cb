/**
 * The vendor credentials of a toolhost: the host's OAuth client to the vendors (sign-in in the
 * browser, refresh, revocation), the users' token stores, and the sealing of what it keeps at
 * rest (AES-256-GCM under TOOLHOST_TOKEN_KEY, written atomically, under a lock shared by the
 * processes writing one file). The host wires these to its config, and the shared store
 * (`@toolhost/redis-store`) implements the ports they take for replicas.
 */
export {
  CredentialsError,
  type CredentialsErrorCode,
  TokenStoreError,
} from './credentials-error.js';
export { FileLock, processAlive } from './file-lock.js';
export { isRecord, SealedFile, type SealedFileOptions } from './sealed-file.js';
export { type Sealed, TokenCipher } from './token-cipher.js';
