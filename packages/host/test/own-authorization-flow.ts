import { createHash, randomBytes } from 'node:crypto';

/**
 * The steps of the host's own authorization server as a client and a person take them, over
 * plain HTTP (cookies kept, redirects not followed): registration, authorization, sign-in with
 * an access token, consent, and the token endpoint.
 */
export const TEST_REDIRECT = 'http://127.0.0.1:9/callback';

/** Cookie-keeping requests without following redirects, as the browser steps need. */
export function cookieBrowser() {
  const jar = new Map<string, string>();
  return async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [name, value] = c.split(';')[0]!.split('=');
      jar.set(name!, value!);
    }
    return res;
  };
}

const hiddenFields = (html: string) =>
  Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );

/** Registers a public client as MCP clients do: both grants (the SDK's default), no secret. */
export async function registerPublicClient(
  origin: string,
  name = 'Host test',
  redirectUri = TEST_REDIRECT,
): Promise<string> {
  const registered = await fetch(`${origin}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      client_name: name,
      grant_types: ['authorization_code', 'refresh_token'],
    }),
  });
  if (registered.status !== 201)
    throw new Error(`registration: ${registered.status} ${await registered.text()}`);
  return ((await registered.json()) as { client_id: string }).client_id;
}

/**
 * Authorizes `clientId` as the person holding `accessToken`: sign-in, consent (allow). The
 * redirect the client receives and the PKCE verifier. `before` runs before each request (a
 * replica test sends each to another replica).
 */
export async function consentWithAccessToken(
  origin: string,
  clientId: string,
  accessToken: string,
  before: (step: string) => void = () => {},
): Promise<{ landed: URL; verifier: string; page: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const go = cookieBrowser();
  const post = (path: string, body: Record<string, string>) =>
    go(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams(body).toString(),
    });
  before('authorize');
  const authorize = await go(
    `${origin}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: TEST_REDIRECT, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: 'st' })}`,
  );
  before('sign-in page');
  const signInPage = await (await go(authorize.headers.get('location')!)).text();
  before('sign-in');
  const signedIn = await post('/auth/sign-in', { ...hiddenFields(signInPage), access_token: accessToken });
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status} ${await signedIn.text()}`);
  before('consent page');
  const page = await (await go(signedIn.headers.get('location')!)).text();
  before('consent');
  const consented = await post('/auth/consent', { ...hiddenFields(page), decision: 'allow' });
  if (consented.status !== 303) throw new Error(`consent: ${consented.status} ${await consented.text()}`);
  return { landed: new URL(consented.headers.get('location')!), verifier, page };
}

export function tokenRequest(origin: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

export function redeemCode(
  origin: string,
  clientId: string,
  landed: URL,
  verifier: string,
  redirectUri = TEST_REDIRECT,
): Promise<Response> {
  return tokenRequest(origin, {
    grant_type: 'authorization_code',
    code: landed.searchParams.get('code')!,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: redirectUri,
  });
}
