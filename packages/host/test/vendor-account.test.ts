import {
  AuthorizationServer,
  accountLabel,
  type OAuthProviderConfig,
  readVendorAccount,
} from '@toolhost/credentials';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOAuthServer, fakeClient, startFakeOAuthServer } from './fake-oauth-server.js';

let oauth: FakeOAuthServer;
beforeAll(async () => {
  oauth = await startFakeOAuthServer();
});
afterAll(() => oauth.close());
beforeEach(() => oauth.reset());

function vendor(extra: Partial<OAuthProviderConfig> = {}): AuthorizationServer {
  return new AuthorizationServer(
    {
      id: 'echo-auth',
      clientId: fakeClient.clientId,
      clientSecret: fakeClient.clientSecret,
      authorizeUrl: oauth.authorizeUrl,
      tokenUrl: oauth.tokenUrl,
      tokenRequestTimeoutMs: 2_000,
      ...extra,
    },
    Date.now,
  );
}

describe('reading which vendor account a token acts for', () => {
  it('asks a bearer endpoint with the access token, and names the account by the declared fields', async () => {
    const { access_token } = oauth.mint('items.read');
    const lookup = { via: 'bearer', url: oauth.whoamiUrl, fields: ['email', 'id'] } as const;
    expect(await readVendorAccount(vendor({ account: lookup }), lookup, access_token)).toBe(
      'person-1@echo.example · usr1',
    );
    expect(oauth.accountLookups).toEqual([{ path: '/whoami', authorization: 'Bearer access-1' }]);
  });

  it('introspects the token with the client’s credentials (RFC 7662)', async () => {
    const { access_token } = oauth.mint('items.read');
    const lookup = {
      via: 'introspection',
      url: oauth.introspectUrl,
      fields: ['user', 'hub_domain'],
    } as const;
    expect(await readVendorAccount(vendor({ account: lookup }), lookup, access_token)).toBe(
      'person-1@echo.example · echo.example',
    );
    expect(oauth.accountLookups[0]?.form).toMatchObject({
      token: 'access-1',
      token_type_hint: 'access_token',
      client_id: fakeClient.clientId,
    });
  });

  it('knows nothing, and throws nothing, when the vendor refuses, calls the token inactive, or has no such endpoint', async () => {
    const bearer = { via: 'bearer', url: oauth.whoamiUrl, fields: ['email'] } as const;
    expect(await readVendorAccount(vendor({ account: bearer }), bearer, 'access-unknown')).toBeUndefined();
    const introspection = { via: 'introspection', url: oauth.introspectUrl, fields: ['user'] } as const;
    expect(
      await readVendorAccount(vendor({ account: introspection }), introspection, 'access-unknown'),
    ).toBeUndefined();
    const missing = { via: 'bearer', url: `${oauth.url}/nowhere`, fields: ['email'] } as const;
    expect(await readVendorAccount(vendor({ account: missing }), missing, 'access-1')).toBeUndefined();
  });
});

describe('an account label', () => {
  it('joins the fields present in order, once each, without control characters, cut to a line', () => {
    expect(accountLabel({ user: 'a@b.example', hub_domain: 'b.example' }, ['user', 'hub_domain'])).toBe(
      'a@b.example · b.example',
    );
    expect(accountLabel({ id: 'usr1' }, ['email', 'id'])).toBe('usr1');
    expect(accountLabel({ hub_id: 42 }, ['user', 'hub_id'])).toBe('42');
    expect(accountLabel({ user: 'x\u2028y\u0007', same: 'x\u2028y\u0007' }, ['user', 'same'])).toBe('xy');
    expect(accountLabel({ user: {}, id: '' }, ['user', 'id'])).toBeUndefined();
    expect(accountLabel({ user: 'u'.repeat(500) }, ['user'])!.length).toBe(160);
  });
});
