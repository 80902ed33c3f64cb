export type { AccessTokenVerification, VerifiedAccessToken } from './access-tokens.js';
export { type AuthorizationServer, createAuthorizationServer } from './authorization-server.js';
export type { TrustedProxies } from './caller.js';
export { type FileStateLock, FileStateStore, type FileStateStoreOptions } from './file-state-store.js';
export type { GrantType } from './grant-types.js';
export { BodyTooLarge, readBody, writeJson } from './http-body.js';
export type {
  AuthorizationEvent,
  AuthorizationServerOptions,
  ScopeDescription,
  SignInMethods,
  UpstreamSignIn,
} from './options.js';
export { type RedisCommands, RedisStateStore } from './redis-state-store.js';
export type { SignInMethod } from './sign-in-binding.js';
export { MemoryStateStore, type StateStore, type WriteOptions } from './state-store.js';
