import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { issuerChecks } from './issuer-checks.js';

/** What the loopback issuer serves: its metadata's fields beyond `issuer`, and its key set's answer. */
let metadata: Record<string, string>;
let jwks: { status: number; body: unknown };
let server: Server;
let issuer: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, ...metadata }));
    else if (req.url === '/jwks') res.writeHead(jwks.status).end(JSON.stringify(jwks.body));
    else res.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  metadata = { jwks_uri: `${issuer}/jwks` };
  jwks = {
    status: 200,
    body: {
      keys: [
        { kty: 'EC', kid: 'k1' },
        { kty: 'EC', kid: 'k2' },
      ],
    },
  };
});

describe('issuerChecks', () => {
  it("finds the issuer's metadata and counts the keys of its key set", async () => {
    expect(await issuerChecks({ issuer })).toEqual([
      { ok: true, line: `issuer: ${issuer} answers its metadata` },
      { ok: true, line: `JWKS: ${issuer}/jwks has 2 keys` },
    ]);
  });

  it('takes the configured key set over the metadata’s, and fails one without keys or answering an error', async () => {
    metadata = {};
    jwks = { status: 200, body: { keys: [{ kty: 'EC' }] } };
    expect((await issuerChecks({ issuer, jwksUri: `${issuer}/jwks` }))[1]).toEqual({
      ok: true,
      line: `JWKS: ${issuer}/jwks has 1 key`,
    });
    expect((await issuerChecks({ issuer }))[1]).toEqual({
      ok: false,
      line: 'JWKS: the issuer names NO jwks_uri; set http.authorization.jwksUri',
    });
    jwks = { status: 500, body: { error: 'down' } };
    expect((await issuerChecks({ issuer, jwksUri: `${issuer}/jwks` }))[1]).toEqual({
      ok: false,
      line: `JWKS: ${issuer}/jwks answered HTTP 500 with 0 keys`,
    });
  });

  it('names the introspection endpoint opaque tokens go to, instead of a key set', async () => {
    metadata = { introspection_endpoint: `${issuer}/introspect` };
    expect(await issuerChecks({ issuer, introspection: { clientId: 'toolhost' } })).toEqual([
      { ok: true, line: `issuer: ${issuer} answers its metadata` },
      { ok: true, line: `introspection: ${issuer}/introspect (as client toolhost)` },
    ]);
    metadata = {};
    expect((await issuerChecks({ issuer, introspection: { clientId: 'toolhost' } }))[1]).toEqual({
      ok: false,
      line: 'introspection: the issuer names NO introspection endpoint; set introspection.endpoint',
    });
  });

  it('says an issuer that serves no metadata is unreachable, and checks nothing further', async () => {
    const checks = await issuerChecks({ issuer: `${issuer}/elsewhere` });
    expect(checks).toHaveLength(1);
    expect(checks[0]!.ok).toBe(false);
    expect(checks[0]!.line).toMatch(
      new RegExp(
        `^issuer: ${issuer}/elsewhere UNREACHABLE or serves no metadata: The issuer .* serves no metadata`,
      ),
    );
  });
});
