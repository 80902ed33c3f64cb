import { describe, expect, it } from 'vitest';
import { confirmationMessage } from './confirmation-message.js';

const write = (body: string | undefined, headers: Record<string, string> = {}) => ({
  tool: 'CrmMarketingApi.SendEmail',
  request: { method: 'POST', url: 'https://api.example.test/emails', headers, body },
});

describe('the confirmation a person reads', () => {
  it('shows the request: method and URL, headers, then the body', () => {
    expect(confirmationMessage(write('{"to":"a@b.c"}', { 'content-type': 'application/json' }))).toBe(
      'CrmMarketingApi.SendEmail wants to send this request. Send it?\n\nPOST https://api.example.test/emails\ncontent-type: application/json\n\n{"to":"a@b.c"}',
    );
  });

  it('writes characters that would not show as escapes, so that the request reads as what is sent', () => {
    // A right-to-left override has `moc.live@rekcatta` show as `attacker@evil.com`,
    // a line separator starts what reads as a new line, a tag character shows nothing at all.
    const body = JSON.stringify({
      to: 'boss@corp.test\u202e moc.live@rekcatta',
      note: 'a\u2028b\u200bc\u{e0041}',
    });
    const shown = confirmationMessage(write(body, { 'x-trace': 'x\u2066y\u0085' }));
    expect(shown).not.toMatch(/[\u202e\u2028\u200b\u2066\u0085]|\udb40/);
    expect(shown).toContain('boss@corp.test\\u202e moc.live@rekcatta');
    expect(shown).toContain('x-trace: x\\u2066y\\u0085');
    // The body still reads as the JSON sent: each escape means the character it replaced.
    expect(JSON.parse(shown.split('\n\n')[2]!)).toEqual(JSON.parse(body));
  });

  it('escapes the characters that show as nothing though not format characters, and keeps combining marks', () => {
    // Variation selectors, Hangul fillers and the blank braille pattern take no room: `ad\u3164min`
    // reads as `admin`. An accent written as a combining mark is text as any other.
    const hidden = [
      '\ufe00',
      '\ufe0f',
      '\u{e0100}',
      '\u{e01ef}',
      '\u115f',
      '\u1160',
      '\u3164',
      '\uffa0',
      '\u2800',
    ];
    const body = JSON.stringify({ user: `ad${hidden.join('')}min`, name: 'Jose\u0301' });
    const shown = confirmationMessage(write(body));
    expect(shown).not.toMatch(/[\ufe00-\ufe0f\u115f\u1160\u3164\uffa0\u2800]|[\ud800-\udfff]/);
    expect(shown).toContain(
      '"user":"ad\\ufe00\\ufe0f\\udb40\\udd00\\udb40\\uddef\\u115f\\u1160\\u3164\\uffa0\\u2800min"',
    );
    expect(shown).toContain('"name":"Jose\u0301"');
    expect(JSON.parse(shown.split('\n\n')[2]!)).toEqual(JSON.parse(body));
  });
});
