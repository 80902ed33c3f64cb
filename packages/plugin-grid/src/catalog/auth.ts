import { type AuthRequirement, providerAuth } from '@toolhost/core';

/** The auth provider every GridApi tool authorizes through. */
export const GRID_AUTH_PROVIDER = 'grid-auth-provider';

/** Airtable's OAuth endpoints, the defaults for `grid-auth-provider` (overridable in host config). */
export const AIRTABLE_OAUTH = {
  authorizeUrl: 'https://airtable.com/oauth2/v1/authorize',
  tokenUrl: 'https://airtable.com/oauth2/v1/token',
  clientAuth: 'basic',
  // Who the token acts for: the user's id always, the email with the user.email:read scope.
  account: { via: 'bearer', url: 'https://api.airtable.com/v0/meta/whoami', fields: ['email', 'id'] },
} as const;

/** Authorization through `grid-auth-provider`; any one of `scopes` suffices. */
export function gridAuth(...scopes: string[]): AuthRequirement {
  return providerAuth(GRID_AUTH_PROVIDER, ...scopes);
}
