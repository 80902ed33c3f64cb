import type { AuthRequirement } from '@toolhost/core';

/** The auth provider every GridApi tool authorizes through. */
export const GRID_AUTH_PROVIDER = 'grid-auth-provider';

/** Authorization through `grid-auth-provider`; any one of `scopes` suffices. */
export function gridAuth(...scopes: string[]): AuthRequirement {
  return { kind: 'provider', provider: GRID_AUTH_PROVIDER, scopes };
}
