import { describe, expect, it } from 'vitest';
import { isUserId } from './index.js';

/** Texts that cannot be a user id: none shows as itself in a terminal, a page or a log line. */
const NOT_USER_IDS = [
  '',
  'a'.repeat(257),
  'ana\u001b[2Jroot', // C0: a terminal's escape sequence
  'ana\nbo',
  'ana\u007f',
  'ana\u009b2J', // C1's CSI
  'ana\u0085bo', // C1's next line
  'ana\u202eoib', // bidi override
  'ana\u200dbo', // zero-width joiner
  'ana\ufeff', // byte order mark
  'a\u2028b', // line separator
  'a\u2029b', // paragraph separator
  'ana\ud800', // lone surrogate
  'alice\u3164', // Hangul filler: a letter that draws nothing
  '\u115f\u1160', // Hangul choseong and jungseong fillers
  'ana\uffa0', // halfwidth Hangul filler
  'ana\u2800', // braille blank
];

describe('a user id', () => {
  it('is refused where a character does not show as itself, or past 256 characters', () => {
    for (const text of NOT_USER_IDS) expect(isUserId(text), JSON.stringify(text)).toBe(false);
    expect(isUserId(42)).toBe(false);
  });

  it('is taken as it is otherwise, any script, spaces and emoji included', () => {
    for (const text of ['ana@team.example', 'Zürich 東京', 'a'.repeat(256), 'ana 👩🏽', 'f3a9-01'])
      expect(isUserId(text), text).toBe(true);
  });
});
