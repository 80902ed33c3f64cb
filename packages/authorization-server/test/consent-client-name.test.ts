import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pkce,
  type Running,
  registerPublicClient,
  signInToConsent,
  startAuthorizationServer,
  TestBrowser,
} from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';

let as: Running;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(() => as.close());

/** The consent page a person sees for a client registered with `name`. */
async function consentPageOf(name: string): Promise<string> {
  const clientId = await registerPublicClient(as.issuer, REDIRECT, name);
  const page = await signInToConsent(new TestBrowser(), as.issuer, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });
  expect(page.url.pathname).toBe('/auth/consent');
  return page.text;
}

// A client names itself; its name is shown as the subject of "… wants to use your tools".
// Bidirectional overrides would have it read as something else than its characters (U+202E
// turns "moc.elgoog" into "google.com" on screen), and control characters have no place there.
describe('the name a client gives itself on the consent page', () => {
  it('is shown without bidirectional formatting or control characters', async () => {
    const text = await consentPageOf('\u202emoc.elgoog\u202c Tools\u0007\u200f\u2066x\u2069\u061c');
    const who = /<span class="who">([^<]*)<\/span>/.exec(text)?.[1];
    expect(who).toBe('moc.elgoog Toolsx');
  });

  it('is shown without invisible characters that hide in a name', async () => {
    const text = await consentPageOf('goo\u200bgle\u00ad \u2060Docs\u{e0041}');
    expect(/<span class="who">([^<]*)<\/span>/.exec(text)?.[1]).toBe('google Docs');
  });

  it('is shown without letters that draw nothing: Hangul fillers, the blank braille pattern, variation selectors', async () => {
    const text = await consentPageOf('Goo\u3164gle\u115F\u1160\uFFA0 Dr\u2800ive\uFE0F\u{E0100}');
    expect(/<span class="who">([^<]*)<\/span>/.exec(text)?.[1]).toBe('Google Drive');
  });

  it('keeps letters of every script, and falls back when nothing is left', async () => {
    expect(/<span class="who">([^<]*)<\/span>/.exec(await consentPageOf('Café Ελληνικά עברית'))?.[1]).toBe(
      'Café Ελληνικά עברית',
    );
    expect(/<span class="who">([^<]*)<\/span>/.exec(await consentPageOf('\u202e\u202c'))?.[1]).toBe(
      'An application',
    );
  });
});
