import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
import {
  authorizationUrl,
  authorizedCode,
  type Running,
  registerPublicClient,
  startAuthorizationServer,
  TestBrowser,
  tokenRequest,
} from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';
const DAY = 86_400_000;

const clock = { now: Date.now() };
let as: Running;
beforeAll(async () => {
  as = await startAuthorizationServer({ store: new MemoryStateStore(() => clock.now) });
});
afterAll(() => as.close());

/** What /auth/authorize answers for the client: 303 while it is registered, 400 once it is not. */
async function authorizeStatus(clientId: string): Promise<number> {
  const res = await new TestBrowser().request(authorizationUrl(as.issuer, clientId, REDIRECT));
  return res.status;
}

// Anyone may register (500 an hour in all): kept 90 days each, registrations nobody ever
// signed in with would pile up to a million records. Only a client a person let in is kept.
describe('registered clients', () => {
  it('are forgotten within a day when nobody was ever issued tokens through them, however often they start a sign-in', async () => {
    const unused = await registerPublicClient(as.issuer, REDIRECT, 'Never used');
    const used = await registerPublicClient(as.issuer, REDIRECT, 'Used');
    const { code, verifier } = await authorizedCode(as.issuer, used, REDIRECT);
    const issued = await tokenRequest(as.issuer, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: used,
      redirect_uri: REDIRECT,
    });
    expect(issued.status).toBe(200);
    // Starting sign-ins (or naming it at the token endpoint) is no use: anyone can do that.
    expect(await authorizeStatus(unused)).toBe(303);
    const junk = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: 'made-up',
      client_id: unused,
    });
    expect(junk.status).toBe(400);

    clock.now += DAY + 60_000;
    expect(await authorizeStatus(unused)).toBe(400);
    expect(await authorizeStatus(used)).toBe(303);
    clock.now += 80 * DAY;
    expect(await authorizeStatus(used)).toBe(303);
  });
});
