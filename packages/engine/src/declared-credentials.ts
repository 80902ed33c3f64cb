import type { ToolSetDefinition } from '@toolhost/core';

/**
 * The auth providers and named secrets the tools of these tool sets use: what a host builds
 * and reads for them, and what it checks its config's `auth.providers` and `secrets` against.
 */
export function declaredCredentials(toolSets: readonly ToolSetDefinition[]): {
  providers: Set<string>;
  secrets: Set<string>;
} {
  const providers = new Set<string>();
  const secrets = new Set<string>();
  for (const set of toolSets) {
    for (const { auth } of set.tools) {
      if (auth.kind === 'provider') providers.add(auth.provider);
      else if (auth.kind === 'secret') secrets.add(auth.secret);
    }
  }
  return { providers, secrets };
}
