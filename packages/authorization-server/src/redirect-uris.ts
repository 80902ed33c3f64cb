const LOOPBACK_NAMES = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * The characters of a URI (RFC 3986: unreserved, reserved, and `%`). The URL parser the server
 * redirects with, as a browser's, drops or rewrites others (tab, CR and LF dropped, `\` read as
 * `/`), so the code would go to a URI other than the one registered and compared.
 */
const URI_TEXT = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/**
 * Why a redirect URI cannot be registered, or undefined when it can: https anywhere, http only
 * to this machine (RFC 8252 §7.3), a private-use scheme of a native app (`com.example.app:`,
 * §7.1); never a fragment, and never a scheme a browser would run (`javascript:`, `data:`).
 */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return 'is not a URI';
  if (!URI_TEXT.test(value)) return 'has characters a URI does not (percent-encode them)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URI';
  }
  // `https:///cb` and `https:cb` parse as host `cb`: the authority must be written where RFC 3986 has it.
  if (['http:', 'https:'].includes(url.protocol) && !/^https?:\/\/[^/]/i.test(value)) return 'names no host';
  if (url.hash || value.includes('#')) return 'has a fragment';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return url.hostname ? undefined : 'names no host';
  if (scheme === 'http')
    return isLoopbackHost(url.hostname) ? undefined : 'uses http to a host other than loopback';
  if (['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'ws', 'wss'].includes(scheme))
    return `uses the ${scheme}: scheme`;
  // A native app's private-use scheme: reverse domain form, as RFC 8252 §7.1 asks.
  return /^[a-z][a-z0-9+.-]*$/.test(scheme) ? undefined : 'has an invalid scheme';
}

/**
 * Whether a redirect URI asked for is one registered: compared exactly (RFC 9700 §4.1.3),
 * except that a loopback http URI may name any port (RFC 8252 §7.3: a native app listens on
 * whichever port is free when it asks).
 */
export function redirectUriMatches(asked: string, registered: readonly string[]): boolean {
  if (registered.includes(asked)) return true;
  // Registered URIs have no fragment; `#` alone parses to no hash, so the text is what is checked.
  if (asked.includes('#')) return false;
  // The whole URI as written but its port: path and query as registered, character for
  // character (a parsed URL resolves `/cb/../cb` and `/./cb`, which no exact comparison does).
  const wanted = portless(asked);
  return wanted !== undefined && registered.some((candidate) => portless(candidate) === wanted);
}

/**
 * A loopback http URI's text without its port (`http://127.0.0.1/cb` for `http://127.0.0.1:9999/cb`),
 * with only the normalizations RFC 3986 §6.2.2.1 and §6.2.3 call safe: scheme and host in lower
 * case, an empty path as `/` (`http://localhost` registered, `http://localhost:9999/` asked).
 */
function portless(uri: string): string | undefined {
  const parts = /^http:\/\/(127(?:\.\d{1,3}){3}|\[::1\]|localhost)(?::\d{1,5})?([/?].*)?$/is.exec(uri);
  if (!parts) return undefined;
  const rest = parts[2] ?? '';
  return `http://${parts[1]!.toLowerCase()}${rest.startsWith('/') ? rest : `/${rest}`}`;
}
