import type { QueryStyle } from '@toolhost/core';

export type QueryPair = readonly [key: string, value: string];

function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
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

/** The query pairs one parameter contributes, in its declared style. */
export function queryPairs(key: string, value: unknown, style: QueryStyle = 'form'): QueryPair[] {
  if (value === undefined || value === null) return [];
  const out: QueryPair[] = [];
  switch (style) {
    case 'form':
      if (Array.isArray(value)) for (const v of value) out.push([key, scalar(v)]);
      else out.push([key, scalar(value)]);
      break;
    case 'comma':
      out.push([key, Array.isArray(value) ? value.map(scalar).join(',') : scalar(value)]);
      break;
    case 'brackets':
      if (Array.isArray(value)) for (const v of value) out.push([`${key}[]`, scalar(v)]);
      else out.push([`${key}[]`, scalar(value)]);
      break;
    case 'deepObject':
      deepPairs(key, value, out);
      break;
    case 'prefixed':
      if (typeof value === 'object' && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          for (const item of Array.isArray(v) ? v : [v]) out.push([`${key}${k}`, scalar(item)]);
        }
      }
      break;
    case 'json':
      out.push([key, JSON.stringify(value)]);
      break;
  }
  return out;
}

/** RFC 3986 percent-encoding of keys and values (space as %20). */
export function encodeQuery(pairs: readonly QueryPair[]): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}
