import { decimalValue } from './exact-numbers.js';
import { type NumberTexts, textsUnder } from './number-texts.js';

/**
 * `uniqueItems` judged on the literals: two ids past 2^53 that share a nearest double
 * (`"12345678901234567891"`, `"12345678901234567892"`) are two items, which the copy of the
 * value validated with doubles in their place called identical.
 */

/**
 * A key equal for two values exactly where ajv's deep equality holds them equal, but for
 * numbers by their exact decimal, a marked string's by its literal's: `1`, `1.0` and `"1"`
 * marked are one, and object members are compared whatever their order.
 */
function sameness(value: unknown, texts: NumberTexts | undefined): string {
  if (texts === true && typeof value === 'string') return `n${decimalValue(value)}`;
  if (typeof value === 'number')
    return Number.isFinite(value) ? `n${decimalValue(String(value))}` : `n${value}`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'u';
  const inner = (key: string) => textsUnder(texts, key);
  if (Array.isArray(value)) return `[${value.map((v, i) => sameness(v, inner(String(i)))).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sameness((value as Record<string, unknown>)[k], inner(k))}`).join(',')}}`;
}

/**
 * The first two items of `items` that are one read exactly, as [earlier, later]; undefined
 * where all are distinct. `texts`: where the items hold strings taken as numbers.
 */
export function firstDuplicate(
  items: readonly unknown[],
  texts: NumberTexts | undefined,
): [number, number] | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = sameness(items[i], textsUnder(texts, i));
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, i];
    seen.set(key, i);
  }
  return undefined;
}
