import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HostConfig } from './host-config.js';
import { ConfigError, loadConfigFile } from './load-config.js';

const DEFAULT_NAMES = ['toolhost.config.json', 'toolhost.config.yaml', 'toolhost.config.yml'];

/** The config from --config, else $TOOLHOST_CONFIG, else the one toolhost.config.* in the cwd, else none. */
export function findConfig(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { config: HostConfig; dir: string; file?: string } {
  const found = DEFAULT_NAMES.map((n) => join(cwd, n)).filter((p) => existsSync(p));
  if (!explicit && !env.TOOLHOST_CONFIG && found.length > 1)
    throw new ConfigError(`${found.join(' and ')} are both config files: keep one, or use --config.`);
  const path = explicit ?? env.TOOLHOST_CONFIG ?? found[0];
  return path ? { ...loadConfigFile(path), file: path } : { config: {}, dir: cwd };
}
