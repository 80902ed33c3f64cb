import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HostConfig } from './host-config.js';
import { loadConfigFile } from './load-config.js';

const DEFAULT_NAMES = ['toolhost.config.json', 'toolhost.config.yaml', 'toolhost.config.yml'];

/** The config from --config, else $TOOLHOST_CONFIG, else a toolhost.config.* in the cwd, else none. */
export function findConfig(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { config: HostConfig; dir: string; file?: string } {
  const path =
    explicit ?? env.TOOLHOST_CONFIG ?? DEFAULT_NAMES.map((n) => join(cwd, n)).find((p) => existsSync(p));
  return path ? { ...loadConfigFile(path), file: path } : { config: {}, dir: cwd };
}
