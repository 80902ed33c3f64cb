import { isUserId } from '@toolhost/front-door';
import { describe, expect, it } from 'vitest';
import { userOfClaims } from './upstream-sign-in.js';

describe('the user an upstream ID token names', () => {
  it('takes the email only where the provider says it is verified', () => {
    expect(userOfClaims({ sub: '1', email: 'ana@team.example', email_verified: true }, {})).toBe(
      'ana@team.example',
    );
    // A provider that does not vouch for the address (or denies it) signs nobody in by email.
    for (const email_verified of [false, undefined, 'true'])
      expect(userOfClaims({ sub: '1', email: 'ana@team.example', email_verified }, {})).toEqual({
        refused: expect.stringContaining('verified'),
      });
  });

  it('takes another claim as it is, where the operator names one', () => {
    expect(userOfClaims({ sub: '1', oid: 'f3a9', email: 'x@y.example' }, { userClaim: 'oid' })).toBe('f3a9');
    expect(userOfClaims({ sub: '1' }, { userClaim: 'oid' })).toEqual({
      refused: expect.stringContaining('oid'),
    });
  });

  it('takes no claim that could not be a user id: control characters, or past 256 characters', () => {
    // C1's CSI (\u009b), a bidi override, a line separator: none shows as itself in a terminal.
    for (const name of [
      'ana\u001b[2Jroot',
      'ana\nbo',
      'a'.repeat(257),
      'ana\u009b2J',
      'ana\u202eoib',
      'a\u2028b',
    ])
      expect(
        userOfClaims({ sub: '1', preferred_username: name }, { userClaim: 'preferred_username' }),
      ).toEqual({
        refused: expect.stringContaining('cannot be a user id'),
      });
    expect(userOfClaims({ preferred_username: 'a'.repeat(256) }, { userClaim: 'preferred_username' })).toBe(
      'a'.repeat(256),
    );
  });

  it("takes what the front door takes as a user id, by the front door's rule", () => {
    // C1's next line, a zero-width joiner, a byte order mark, a paragraph separator, a lone surrogate.
    for (const name of ['ana\u0085bo', 'ana\u200dbo', 'ana\ufeff', 'a\u2029b', 'ana\ud800', 'Zürich 東京']) {
      const taken = userOfClaims({ preferred_username: name }, { userClaim: 'preferred_username' }) === name;
      expect(taken, JSON.stringify(name)).toBe(isUserId(name));
    }
    expect(isUserId('ana\ud800')).toBe(false);
  });

  it('keeps to the allowed users and to verified emails at the allowed domains', () => {
    const verified = { sub: 's', email: 'ana@team.example', email_verified: true };
    expect(userOfClaims(verified, { allowedUsers: ['bo@team.example'] })).toEqual({
      refused: 'This account may not use this server.',
    });
    expect(userOfClaims(verified, { allowedDomains: ['TEAM.example'] })).toBe('ana@team.example');
    expect(userOfClaims(verified, { allowedDomains: ['other.example'] })).toEqual({
      refused: "This account's domain may not use this server.",
    });
    expect(
      userOfClaims(
        { sub: 's', email: 'ana@team.example' },
        { userClaim: 'sub', allowedDomains: ['team.example'] },
      ),
    ).toEqual({ refused: "This account's domain may not use this server." });
  });
});
