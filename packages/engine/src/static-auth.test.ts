import { describe, expect, it } from 'vitest';
import { credentialProblem, MapSecretSource, StaticTokenAuthProvider } from './static-auth.js';

describe('StaticTokenAuthProvider', () => {
  it('says whether its token is configured, and what to set when not, never the token', () => {
    expect(new StaticTokenAuthProvider('p', 'secret-token').setup()).toEqual({
      ok: true,
      detail: 'static token configured',
    });
    expect(new StaticTokenAuthProvider('p', 'secret-token', 'set P_TOKEN', 'P_TOKEN').setup()).toEqual({
      ok: true,
      detail: 'static token set in P_TOKEN',
    });
    expect(new StaticTokenAuthProvider('p', undefined, 'set P_TOKEN').setup()).toEqual({
      ok: false,
      detail: 'set P_TOKEN',
    });
  });

  it('answers a call authorization_required where its token is a placeholder, naming where it is set', async () => {
    const provider = new StaticTokenAuthProvider('p', '<your token>', 'set P_TOKEN', 'P_TOKEN');
    expect(await provider.getCredentials({ userId: 'u', scopes: [] })).toEqual({
      kind: 'authorization_required',
      message: 'No access token: P_TOKEN holds a placeholder, not a real value; set P_TOKEN.',
    });
    expect(
      await new StaticTokenAuthProvider('p', 'pat123.abc').getCredentials({ userId: 'u', scopes: [] }),
    ).toEqual({
      kind: 'bearer',
      token: 'pat123.abc',
      connection: 'static',
    });
  });

  it('says it is no connection to list or revoke, where the token is set and how to stop it, never the token', () => {
    const fromEnv = new StaticTokenAuthProvider(
      'crm-auth',
      'pat-na1-0042',
      'set CRM_AUTH_TOKEN',
      'CRM_AUTH_TOKEN',
    );
    expect(fromEnv.notAConnection).toBe(
      "'crm-auth' is configured with a static token (set in CRM_AUTH_TOKEN), not OAuth: there is no stored connection to revoke. To stop using the token, unset or remove CRM_AUTH_TOKEN and restart the host; revoke it at the vendor to end it everywhere.",
    );
    const unnamed = new StaticTokenAuthProvider('crm-auth', 'pat-na1-0042').notAConnection;
    expect(unnamed).toContain("'crm-auth' is configured with a static token, not OAuth");
    expect(unnamed).toContain('unset or remove it and restart the host');
    expect(unnamed).not.toContain('0042');
  });

  it('names every place a token is set, the one sent first, where it overrides another', async () => {
    const both = new StaticTokenAuthProvider(
      'crm-auth',
      'pat-na1-0042',
      'set CRM_AUTH_TOKEN',
      'CRM_AUTH_TOKEN',
      ['auth.providers.crm-auth.token'],
    );
    expect(both.setIn).toBe('CRM_AUTH_TOKEN, which overrides auth.providers.crm-auth.token');
    expect(both.setup()).toEqual({
      ok: true,
      detail: 'static token set in CRM_AUTH_TOKEN, which overrides auth.providers.crm-auth.token',
    });
    // Stopping it takes removing both: the one left would be sent at the next start.
    expect(both.notAConnection).toBe(
      "'crm-auth' is configured with a static token (set in CRM_AUTH_TOKEN, which overrides auth.providers.crm-auth.token), not OAuth: there is no stored connection to revoke. To stop using the token, unset or remove CRM_AUTH_TOKEN and auth.providers.crm-auth.token and restart the host; revoke it at the vendor to end it everywhere.",
    );
    // A stand-in where it overrides another names that one too: the person set a real token there.
    const standIn = new StaticTokenAuthProvider(
      'crm-auth',
      '<token>',
      'set CRM_AUTH_TOKEN',
      'CRM_AUTH_TOKEN',
      ['auth.providers.crm-auth.token'],
    );
    expect(standIn.setup().detail).toBe(
      'CRM_AUTH_TOKEN holds a placeholder, not a real value (and overrides auth.providers.crm-auth.token); set CRM_AUTH_TOKEN',
    );
    expect(await standIn.getCredentials({ userId: 'u', scopes: [] })).toEqual({
      kind: 'authorization_required',
      message:
        'No access token: CRM_AUTH_TOKEN holds a placeholder, not a real value (and overrides auth.providers.crm-auth.token); set CRM_AUTH_TOKEN.',
    });
    for (const text of [both.setIn, both.notAConnection, both.setup().detail])
      expect(text).not.toContain('0042');
  });
});

describe('credentialProblem', () => {
  it("takes the README's stand-ins and the usual ones for placeholders", () => {
    for (const value of [
      '<HubSpot private-app token>',
      '<Airtable personal access token>',
      '<Customer.io source API key>',
      '<token>',
      '...',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config value that expected interpolation, literally
      '${HUBSPOT_TOKEN}',
      '{your token}',
      '{{ api_key }}',
      'changeme',
      'CHANGE_ME',
      'xxx',
      'xxxxxxxx-xxxx-xxxx',
      'your_token_here',
      'YOUR-HUBSPOT-TOKEN',
      'paste your key here',
      '"<token>"',
      "'changeme'",
      'TODO',
      'token',
      '',
      '   ',
    ])
      expect(credentialProblem(value), value).toBe('a placeholder, not a real value');
  });

  it('never takes a real-looking credential for one', () => {
    for (const value of [
      'pat-na1-0f3b5a6c-1d2e-4f70-8a9b-0c1d2e3f4a5b',
      'pat-eu1-7c0e5bd4-9a1f-4c3e-b2d8-5f6a7b8c9d0e',
      'patQ1w2E3r4T5y6U7i.4f9a1c3e5b7d9f0a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b0d2f4a6c8e0b2d4f6a8c0e',
      '3fa85f6457174562b3fc2c963f66afa6',
      'd41d8cd98f00b204e9800998ecf8427e',
      'x',
      'tok',
      'my-team-secret-2024',
      'Yourself42',
      'enterprise-key-9f8e7d6c',
      // A secret that is a JSON document is not a `{placeholder}`.
      '{"type":"service_account","key":"abc"}',
    ])
      expect(credentialProblem(value), value).toBeUndefined();
  });

  it('takes a line break inside a value for two values pasted together, and one around it for none', () => {
    for (const value of ['pat-na1-0f3b5a6c\n-1d2e-4f70', 'pat-one\r\npat-two', '"pat-a\npat-b"'])
      expect(credentialProblem(value), value).toBe('a line break inside, which no token or key has');
    expect(credentialProblem('pat-na1-0f3b5a6c-1d2e\n')).toBeUndefined();
    expect(credentialProblem('a key with spaces')).toBeUndefined();
    const provider = new StaticTokenAuthProvider('p', 'pat-one\npat-two', 'set P_TOKEN', 'P_TOKEN');
    expect(provider.setup()).toEqual({
      ok: false,
      detail: 'P_TOKEN holds a line break inside, which no token or key has; set P_TOKEN',
    });
  });

  it('makes a static token not configured, naming where it was set but never the value', () => {
    const setup = new StaticTokenAuthProvider('p', 'changeme', 'set P_TOKEN', 'P_TOKEN').setup();
    expect(setup).toEqual({
      ok: false,
      detail: 'P_TOKEN holds a placeholder, not a real value; set P_TOKEN',
    });
  });
});

describe('MapSecretSource', () => {
  it('names the environment variable and the config key that set a missing secret', () => {
    expect(new MapSecretSource({}).describe('CDP_API_KEY')).toBe(
      'set the environment variable CDP_API_KEY, or secrets.CDP_API_KEY in the config file',
    );
  });
});
