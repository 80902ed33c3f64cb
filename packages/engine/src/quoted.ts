/**
 * Characters that do not show as themselves: controls (a `\r` echoed to a terminal has it write
 * over the line), format characters (a bidi override reverses what follows), line and paragraph
 * separators, and halves of a character (lone surrogates).
 */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
const SHORT: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

/** `text` with each unseen character as its JSON-string escape (`\r`, `\u202e`). */
export function escapeUnseen(text: string): string {
  const units = (c: string) => c.split('').map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.replace(UNSEEN, (c) => SHORT[c] ?? units(c).join(''));
}

/**
 * `text` with each unseen character escaped but its line feeds, for text of several lines (a
 * usage, a report) that may hold what someone gave: it still shows as its lines.
 */
export const escapeLines = (text: string): string => text.split('\n').map(escapeUnseen).join('\n');

/**
 * Text someone gave (a parameter name, a config key or value, a flag, a path) as a message
 * quotes it: in single quotes, its unseen characters escaped, so that what is read is what was
 * given. Never for a secret: escaped, it still shows.
 */
export const quoted = (text: string): string => `'${escapeUnseen(text)}'`;

/** `text` cut to its first `max` characters and an ellipsis, never between a character's halves. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}
