import { resolve } from 'node:path';
import { isObject, quoted } from '@toolhost/engine/internal';
import type { HostConfig } from './host-config.js';
import { ConfigError, readConfigFile } from './load-config.js';

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
  const fromFile = config.secretsFile ? secretsIn(resolve(configDir, config.secretsFile)) : {};
  const out: Record<string, string | undefined> = { ...fromFile, ...config.secrets };
  for (const name of names) if (env[name]) out[name] = env[name];
  return out;
}

/**
 * The named secrets of a secrets file, each a string: YAML reads `0012` as 12 and a long digit
 * run as a rounded number, a different secret sent without a word.
 */
function secretsIn(file: string): Record<string, string> {
  const data = readConfigFile(file, 'secretsFile');
  if (!isObject(data))
    throw new ConfigError(`The secretsFile ${quoted(file)} must hold an object of named secrets.`);
  const odd = Object.keys(data).find((name) => typeof data[name] !== 'string');
  if (odd !== undefined)
    throw new ConfigError(
      `The secretsFile ${quoted(file)} gives ${quoted(odd)} a value that is not a string: quote it (YAML reads digits as a number).`,
    );
  return data as Record<string, string>;
}
