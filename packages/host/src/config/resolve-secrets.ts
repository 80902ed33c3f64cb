import { resolve } from 'node:path';
import type { HostConfig } from './host-config.js';
import { readConfigFile } from './load-config.js';

/** Environment variable that sets one of a provider's settings: `crm-auth-provider`, `CLIENT_ID` → `CRM_AUTH_PROVIDER_CLIENT_ID`. */
export function providerEnvName(providerId: string, setting: string): string {
  return `${providerId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${setting}`;
}

/** Environment variable that overrides a provider's static token: `crm-auth-provider` → `CRM_AUTH_PROVIDER_TOKEN`. */
export const tokenEnvName = (providerId: string): string => providerEnvName(providerId, 'TOKEN');

/**
 * Secrets by precedence: environment (same name) over config `secrets` over `secretsFile`.
 * `names` are the secrets the loaded tools declare; only those are read from the environment.
 */
export function resolveSecrets(
  config: HostConfig,
  names: Iterable<string>,
  env: NodeJS.ProcessEnv,
  configDir: string,
): Record<string, string | undefined> {
  const fromFile = config.secretsFile
    ? (readConfigFile(resolve(configDir, config.secretsFile), 'secretsFile') as Record<string, string>)
    : {};
  const out: Record<string, string | undefined> = { ...fromFile, ...config.secrets };
  for (const name of names) if (env[name]) out[name] = env[name];
  return out;
}
