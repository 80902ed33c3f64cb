/**
 * The vendor credentials of a toolhost: the host's OAuth client to the vendors (sign-in in the
 * browser with PKCE, refresh shared across replicas, revocation), the users' token stores, and
 * the sealing of what it keeps at rest (AES-256-GCM under TOOLHOST_TOKEN_KEY, written
 * atomically, under a lock shared by the processes writing one file). The host wires these to
 * its config; the shared store (`@toolhost/redis-store`) implements the ports they take.
 */
export type {
  AuthorizationFlows,
  AuthorizationSignals,
  NewAuthorization,
  PendingAuthorization,
  PendingAuthorizationStore,
  RefreshLock,
  RefreshLockRelease,
} from '@toolhost/redis-store';
export { AuthorizationServer, type OAuthProviderConfig } from './authorization-server.js';
export { LocalWaiters, MemoryAuthorizationSignals } from './authorization-signals.js';
export {
  type BrowserSignIn,
  CALLBACK_PATH_PREFIX,
  hasBrowserSignIn,
  OAuthCallbackError,
  type PendingFlow,
  type RevokeResult,
  type SignInProvider,
  START_PATH_PREFIX,
} from './browser-sign-in.js';
export {
  CredentialsError,
  type CredentialsErrorCode,
  TokenStoreError,
} from './credentials-error.js';
export { EncryptedFileTokenStore, TOKEN_FILE } from './encrypted-file-token-store.js';
export { FileLock, processAlive } from './file-lock.js';
export { MemoryTokenStore } from './memory-token-store.js';
export { OAuthAuthProvider } from './oauth-provider.js';
export { OAuthSignIn } from './oauth-sign-in.js';
export {
  MAX_PENDING_PER_USER,
  PENDING_TTL_MS,
  PendingAuthorizations,
} from './pending-authorizations.js';
export { isRecord, SealedFile, type SealedFileOptions } from './sealed-file.js';
export { type Sealed, TokenCipher } from './token-cipher.js';
export { withinDateRange } from './token-expiry.js';
export {
  isRefreshingProvider,
  type RefreshEvent,
  type RefreshingProvider,
  type RefreshOutcome,
} from './token-refresh.js';
export { accountLabel, readVendorAccount } from './vendor-account.js';
