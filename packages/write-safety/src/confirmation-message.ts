import type { ConfirmWrite } from './ask-person.js';

/**
 * Characters that change how the text around them reads without showing themselves: controls,
 * bidirectional overrides and isolates (U+202E has `moc.live@x` read as `x@evil.com`),
 * zero-width and other format characters, line and paragraph separators; and those that show
 * as nothing though Unicode files them as marks, letters or symbols: variation selectors, the
 * Hangul fillers, the blank braille pattern (other combining marks are ordinary text). In a
 * request a person is asked to confirm they would show one request and send another.
 */
const UNSEEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{115F}\u{1160}\u{3164}\u{FFA0}\u{2800}]|[\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/gu;

/**
 * Each such character as its `\uXXXX` escapes (a line break and a tab kept), which in the body's
 * JSON strings mean the same: for every place a person reads a request to confirm it.
 */
export function visible(text: string): string {
  return text.replace(UNSEEN, (c) => {
    if (c === '\n' || c === '\t') return c;
    let escaped = '';
    for (let i = 0; i < c.length; i += 1) escaped += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return escaped;
  });
}

/**
 * The request as the person who confirms it reads it: method and URL, headers, then the body,
 * with every character that would not show written as its escape.
 */
export function confirmationMessage(write: Parameters<ConfirmWrite>[0]): string {
  const { method, url, headers, body } = write.request;
  const lines = [
    `${write.tool} wants to send this request. Send it?`,
    '',
    `${method} ${url}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  if (body !== undefined) lines.push('', typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return visible(lines.join('\n'));
}
