/**
 * Where the host's pages are served, apart from the pages themselves: the server's routes
 * name them from the start, and the pages' modules load at their first request.
 */

/** `/connections`: a person's vendor connections, seen and ended (connections-page.ts). */
export const CONNECTIONS_PATH = '/connections';
/** Whether a request's path is `/connections` or one of the pages under it. */
export const isConnectionsPath = (pathname: string): boolean =>
  pathname === CONNECTIONS_PATH || pathname.startsWith(`${CONNECTIONS_PATH}/`);
/** Where the authorization server sends the person back to the pages (exact, under the public URL). */
export const PAGES_CALLBACK_PATH = '/connections/callback';
