import type { QueryStyle } from '@toolhost/core';
import { type NumberTexts, stringifyWithNumbers, textsUnder } from './number-texts.js';

export type QueryPair = readonly [key: string, value: string];

/** A value as query text: a string as it is, an object as JSON (a string standing for a number bare). */
function scalar(value: unknown, texts?: NumberTexts): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return stringifyWithNumbers(value, texts);
}

function deepPairs(key: string, value: unknown, out: QueryPair[]): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) deepPairs(`${key}[${i}]`, v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) deepPairs(`${key}[${k}]`, v, out);
  } else if (value !== undefined) {
    out.push([key, scalar(value)]);
  }
}

/** Each element of an array with its number texts, or the value itself as the one element. */
function elements(value: unknown, texts: NumberTexts | undefined): [unknown, NumberTexts | undefined][] {
  if (!Array.isArray(value)) return [[value, texts]];
  return Array.from(value, (v, i) => [v, textsUnder(texts, i)]);
}

/**
 * The query pairs one parameter contributes, in its declared style; `texts`, where its value
 * holds strings that stand for numbers, for those JSON-encoded.
 */
export function queryPairs(
  key: string,
  value: unknown,
  style: QueryStyle = 'form',
  texts?: NumberTexts,
): QueryPair[] {
  if (value === undefined || value === null) return [];
  const out: QueryPair[] = [];
  switch (style) {
    case 'form':
      for (const [v, t] of elements(value, texts)) out.push([key, scalar(v, t)]);
      break;
    case 'comma':
      out.push([
        key,
        elements(value, texts)
          .map(([v, t]) => scalar(v, t))
          .join(','),
      ]);
      break;
    case 'brackets':
      for (const [v, t] of elements(value, texts)) out.push([`${key}[]`, scalar(v, t)]);
      break;
    case 'deepObject':
      deepPairs(key, value, out);
      break;
    case 'prefixed':
      if (typeof value === 'object' && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          for (const [item, t] of elements(v, textsUnder(texts, k)))
            out.push([`${key}${k}`, scalar(item, t)]);
        }
      }
      break;
    case 'json':
      out.push([key, stringifyWithNumbers(value, texts)]);
      break;
  }
  return out;
}

/** RFC 3986 percent-encoding of keys and values (space as %20). */
export function encodeQuery(pairs: readonly QueryPair[]): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}
