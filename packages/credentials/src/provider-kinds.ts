/**
 * What an auth provider can do (users sign in in their browser; it refreshes tokens), told
 * without loading the OAuth client: the package's `./provider-kinds` export, for a host that
 * starts with no OAuth provider configured.
 */
export { type BrowserSignIn, hasBrowserSignIn, type SignInProvider } from './browser-sign-in.js';
export { isRefreshingProvider, type RefreshingProvider } from './token-refresh.js';
