import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { doctorReport } from '../src/cli/doctor.js';
import type { Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { Browser, formOf } from './browser.js';
import { MemoryOAuthProvider } from './memory-oauth-provider.js';
import { jsonLines } from './support.js';
import { startTeamIdp, type TeamIdp } from './team-idp.js';
import { writeHost } from './write-support.js';

// The MCP endpoint as an OAuth protected resource of a team's identity provider (oidc-provider,
// started here): a client that only speaks the MCP authorization spec discovers the resource's
// metadata, registers at the IdP, has its person sign in, and calls tools as that person; a
// token for anything else is refused with the spec's challenge and nothing reaches upstream.
const OPERATOR_TOKEN = 'headless-agent-token-0123456789';
const OTHER_RESOURCE = 'https://other.example.test/mcp';

let idp: TeamIdp;
let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
let auditFile: string;

beforeAll(async () => {
  idp = await startTeamIdp({ resources: [OTHER_RESOURCE] });
  upstream = await startRecordingUpstream();
  auditFile = join(mkdtempSync(join(tmpdir(), 'toolhost-front-door-')), 'audit.jsonl');
  host = await writeHost(upstream.url, {
    http: { authorization: { issuer: idp.issuer } },
    audit: { log: auditFile },
  });
  server = await serveHttp(host, {
    port: 0,
    accessTokens: new AccessTokens({ robot: OPERATOR_TOKEN }),
  });
  idp.allowResource(server.url);
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  await upstream?.close();
  await idp?.close();
});

/** The client as a desktop client registers itself. */
const CLIENT = { redirectUrl: 'http://127.0.0.1:1/callback', clientName: 'Front door test client' };

const metadataUrl = () => `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`;

/** The person's browser on the IdP's pages: signs in as `login`, consents, returns the callback's query. */
async function signInAt(authorizationUrl: URL, login: string): Promise<URLSearchParams> {
  const browser = new Browser();
  const isCallback = (next: URL) => next.href.startsWith('http://127.0.0.1:1/callback');
  let page = await browser.open(authorizationUrl, {}, isCallback);
  for (let step = 0; step < 3 && !isCallback(page.url); step++) {
    const { action, fields } = formOf(page);
    page = await browser.submit(action, { ...fields, login, password: 'any' }, isCallback);
  }
  expect(isCallback(page.url)).toBe(true);
  return page.url.searchParams;
}

/** Connects a client with only an OAuth provider (no header), signing its person in when asked. */
async function connectAs(
  login: string,
  era: 'legacy' | 'modern',
  provider = new MemoryOAuthProvider(CLIENT),
  url = server.url,
): Promise<Client> {
  const make = () =>
    new Client(
      { name: 'front-door-client', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
    );
  const first = make();
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const callback = await signInAt(provider.authorizationUrl!, login);
  await transport.finishAuth(callback);
  const client = make();
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

const mcpPost = (authorization: string | undefined, body: unknown) =>
  fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify(body),
  });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

describe('the protected resource', () => {
  it('publishes its RFC 9728 metadata naming the issuer, at the root and the path form', async () => {
    for (const url of [metadataUrl(), `${new URL(server.url).origin}/.well-known/oauth-protected-resource`]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: server.url,
        authorization_servers: [idp.issuer],
        scopes_supported: ['tools:read', 'tools:write'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it("answers a browser client's preflight for the metadata, which its discovery sends MCP-Protocol-Version with", async () => {
    const origin = 'https://inspector.example.test';
    const preflight = await fetch(metadataUrl(), {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    const read = await fetch(metadataUrl(), { headers: { origin, 'mcp-protocol-version': '2025-11-25' } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    const post = await fetch(metadataUrl(), { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
  });

  it('answers a request without a token 401 with the challenge pointing at the metadata', async () => {
    const res = await mcpPost(undefined, initialize);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl()}", scope="tools:read tools:write"`,
    );
  });
});

describe('a client that speaks only the MCP authorization spec', () => {
  it.each(['legacy', 'modern'] as const)(
    'registers at the IdP, signs its person in and calls tools as that person (%s era)',
    async (era) => {
      const login = `carol-${era}`;
      const client = await connectAs(login, era);
      const before = upstream.requests.length;
      const result = await client.callTool({ name: 'WriteApi_ListThings', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(upstream.requests.slice(before)).toHaveLength(1);
      expect(upstream.requests.at(-1)).toMatchObject({ method: 'GET', path: '/things' });
      await client.close();
      const lines = jsonLines(auditFile).filter((l) => l.user === login);
      expect(lines.filter((l) => l.event === 'tool_call').at(-1)).toMatchObject({
        tool: 'WriteApi.ListThings',
        outcome: 'ok',
      });
      // One sign-in line for the token's first use, not one per request.
      expect(lines.filter((l) => l.outcome === 'sign_in')).toHaveLength(1);
      expect(lines.find((l) => l.outcome === 'sign_in')).toMatchObject({ event: 'authorization' });
    },
  );

  it('is refused cleanly when its token is for another resource, and nothing is sent', async () => {
    const provider = new MemoryOAuthProvider({ ...CLIENT, resourceOverride: OTHER_RESOURCE });
    const first = new Client({ name: 'wrong-resource', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await signInAt(provider.authorizationUrl!, 'dave');
    await transport.finishAuth(callback);
    const token = (await provider.tokens())!.access_token;
    const before = upstream.requests.length;
    const res = await mcpPost(`Bearer ${token}`, initialize);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]*another resource/,
    );
    const again = new Client({ name: 'wrong-resource', version: '1.0.0' });
    await expect(
      again.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider })),
    ).rejects.toThrow();
    expect(upstream.requests.length).toBe(before);
    expect(jsonLines(auditFile).some((l) => l.outcome === 'invalid_token')).toBe(true);
  });
});

describe('tokens that are not good here', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const call = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'WriteApi_ListThings', arguments: {} },
  };

  it.each([
    ['another audience', () => idp.sign({ sub: 'eve', aud: OTHER_RESOURCE }), 'another resource'],
    [
      'another issuer',
      () => idp.sign({ sub: 'eve', aud: server.url, iss: 'https://evil.example.test' }),
      'another issuer',
    ],
    ['an expired token', () => idp.sign({ sub: 'eve', aud: server.url, exp: now() - 600 }), 'expired'],
    [
      'a token not valid yet',
      () => idp.sign({ sub: 'eve', aud: server.url, nbf: now() + 600 }),
      'not valid yet',
    ],
    [
      'a key not in the JWKS',
      () => idp.sign({ sub: 'eve', aud: server.url }, { kid: 'not-a-team-key' }),
      'not among',
    ],
    [
      'alg: none',
      async () =>
        new UnsecuredJWT({ sub: 'eve', scope: 'tools:write' })
          .setIssuer(idp.issuer)
          .setAudience(server.url)
          .setExpirationTime(now() + 300)
          .encode(),
      'signing algorithm is not accepted',
    ],
  ])('refuses %s with 401 invalid_token, and sends nothing', async (_what, make, reason) => {
    const before = upstream.requests.length;
    const res = await mcpPost(`Bearer ${await make()}`, call);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(challenge).toContain(reason);
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(upstream.requests.length).toBe(before);
  });

  it('answers a read-only token 403 insufficient_scope for a write tool, and sends nothing', async () => {
    const token = await idp.sign({ sub: 'frank', aud: server.url, scope: 'tools:read' });
    const before = upstream.requests.length;
    const write = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'WriteApi_UpdateThing', arguments: { id: '1', title: 'x' } },
    };
    const res = await mcpPost(`Bearer ${token}`, write);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="tools:write"');
    expect(upstream.requests.length).toBe(before);
    const line = jsonLines(auditFile).at(-1);
    expect(line).toMatchObject({ event: 'refusal', outcome: 'insufficient_scope', user: 'frank' });
  });

  it('still honours the operator static token of a headless agent beside OAuth', async () => {
    const client = new Client({ name: 'robot', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } },
      }),
    );
    const result = await client.callTool({ name: 'WriteApi_ListThings', arguments: {} });
    expect(result.isError).toBeFalsy();
    await client.close();
  });
});

describe('doctor', () => {
  it("checks the front door: the issuer's metadata and keys, the resource metadata", async () => {
    const { text } = await doctorReport(host, { env: {} });
    expect(text).toContain('Front door (MCP authorization):');
    expect(text).toContain(`ok: issuer: ${idp.issuer} answers its metadata`);
    expect(text).toMatch(/ok: JWKS: http:\/\/127\.0\.0\.1:\d+\/jwks has 1 key\n/);
    expect(text).toContain(`authorization servers ${idp.issuer}`);
  });

  it('reports an issuer that does not answer, and a public URL that is not https', async () => {
    const away = await writeHost(upstream.url, {
      http: { publicUrl: 'http://tools.example.test', authorization: { issuer: 'http://127.0.0.1:9' } },
    });
    try {
      const { text, healthy } = await doctorReport(away, { env: {} });
      expect(healthy).toBe(false);
      expect(text).toContain('problem: public URL: http://tools.example.test is NOT https');
      expect(text).toContain('problem: issuer: http://127.0.0.1:9 UNREACHABLE');
    } finally {
      await away.close();
    }
  });
});

describe('opaque access tokens, checked by introspection (RFC 7662)', () => {
  const introspector = { clientId: 'toolhost-resource', clientSecret: 'introspection-secret-0123456789' };
  let opaqueIdp: TeamIdp;
  let opaqueHost: Host;
  let opaqueServer: HttpServerHandle;

  beforeAll(async () => {
    opaqueIdp = await startTeamIdp({ accessTokenFormat: 'opaque', introspector });
    opaqueHost = await writeHost(upstream.url, {
      http: {
        authorization: {
          issuer: opaqueIdp.issuer,
          introspection: { clientId: introspector.clientId, clientSecret: introspector.clientSecret },
        },
      },
    });
    opaqueServer = await serveHttp(opaqueHost, { port: 0 });
    opaqueIdp.allowResource(opaqueServer.url);
  });
  afterAll(async () => {
    await opaqueServer?.close();
    await opaqueHost?.close();
    await opaqueIdp?.close();
  });

  it('with OAuth as the only door, nobody reaching the host is its local operator', async () => {
    const origin = new URL(opaqueServer.url).origin;
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
    expect(await (await fetch(`${origin}/healthz`)).json()).toEqual({ status: 'ok' });
    const page = await (await fetch(`${origin}/connections`)).text();
    expect(page).not.toContain('Disconnect');
    expect(page).toMatch(/sign in/i);
    // No pages client at the IdP and no access tokens: the page says what to set, not a form.
    expect(page).toContain('http.authorization.pagesClient');
    expect(page).not.toContain('name="access_token"');
  });

  it('signs the person in and calls a tool as them; a made-up token is refused', async () => {
    const client = await connectAs('grace', 'legacy', new MemoryOAuthProvider(CLIENT), opaqueServer.url);
    const before = upstream.requests.length;
    const result = await client.callTool({ name: 'WriteApi_ListThings', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.length).toBe(before + 1);
    await client.close();
    const res = await fetch(opaqueServer.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer not-a-token-the-idp-issued',
      },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(
      'error="invalid_token", error_description="the token is not active"',
    );
  });
});
