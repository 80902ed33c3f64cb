import type { AccountLookup } from '@toolhost/core';
import * as oauth from 'oauth4webapi';
import { type AuthorizationServer, boundedFetch } from './authorization-server.js';

/** Longer answers are cut: the label is for a person to recognise an account, not a record. */
const MAX_LABEL = 160;

/**
 * Which vendor account an access token acts for, in the vendor's words, as `lookup` says to
 * ask: undefined where the vendor does not answer or names nothing, since the connection works
 * without it. Asked once, when a person connects (under the token requests' deadline).
 */
export async function readVendorAccount(
  server: AuthorizationServer,
  lookup: AccountLookup,
  accessToken: string,
): Promise<string | undefined> {
  try {
    const answer = await server.exchange(async (options) => {
      if (lookup.via === 'introspection') {
        const response = await oauth.introspectionRequest(
          server.as,
          server.client,
          server.clientAuth,
          accessToken,
          { ...options, additionalParameters: { token_type_hint: 'access_token' } },
        );
        const introspection = await oauth.processIntrospectionResponse(server.as, server.client, response);
        return introspection.active ? (introspection as Record<string, unknown>) : undefined;
      }
      const response = await oauth.protectedResourceRequest(
        accessToken,
        'GET',
        new URL(lookup.url),
        new Headers({ accept: 'application/json' }),
        null,
        {
          ...(options.signal ? { signal: options.signal } : {}),
          [oauth.customFetch]: boundedFetch,
          ...(options[oauth.allowInsecureRequests] ? { [oauth.allowInsecureRequests]: true } : {}),
        },
      );
      if (!response.ok) return undefined;
      const body: unknown = await response.json();
      return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    });
    return answer && accountLabel(answer, lookup.fields);
  } catch {
    return undefined;
  }
}

/** The named fields' values that are present, in order, joined for display. */
export function accountLabel(answer: Record<string, unknown>, fields: readonly string[]): string | undefined {
  const parts = fields
    .map((field) => answer[field])
    .filter((v): v is string | number => (typeof v === 'string' && v.trim() !== '') || typeof v === 'number')
    .map((v) =>
      String(v)
        .replace(/[\p{Cc}\u2028\u2029]/gu, '')
        .trim(),
    );
  const label = [...new Set(parts)].filter(Boolean).join(' · ');
  if (!label) return undefined;
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}
