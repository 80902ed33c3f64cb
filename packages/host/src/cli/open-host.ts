import { withoutPlaceholders } from '../config/bundle-environment.js';
import { CONFIG_DEFAULTS } from '../config/config-defaults.js';
import { findConfig } from '../config/find-config.js';
import { applyOverrides, type ConfigOverrides, commaList, overridesFromEnv } from '../config/overrides.js';
import { createHost, type Host } from '../host.js';
import { createLogger, type Logger, replicaId } from '../logger.js';
import { commandDirectory } from '../plugins/discover-plugins.js';
import { sharedStoreUrl } from '../store/redis-url.js';
import { emptyCatalogMessage } from './empty-catalog.js';

/** The options every command takes (set before or after the command's name): the config overrides, and where to start. */
export interface GlobalOptions extends ConfigOverrides {
  config?: string;
  plugins?: string[];
  allowEmpty?: boolean;
  /** Leave out plugin packages that cannot be imported (doctor reports them) instead of failing. */
  unloadablePlugins?: 'refuse' | 'skip';
}

/**
 * The host a command works with: the config file (if any) with the environment's and the
 * flags' overrides, the plugins named or discovered, and the process's one logger. A host with
 * no tool is refused (unless allowed), since every command would then do nothing.
 */
export async function openHost(
  options: GlobalOptions,
  given: NodeJS.ProcessEnv = process.env,
): Promise<{ host: Host; logger: Logger; configFile?: string }> {
  const { env, warnings } = withoutPlaceholders(given);
  const { config: fileConfig, dir, file } = findConfig(options.config, env, process.cwd());
  const { config: _file, plugins: _plugins, allowEmpty: _allowEmpty, unloadablePlugins, ...flags } = options;
  const config = applyOverrides(fileConfig, flags, overridesFromEnv(env));
  // Replicas sharing a store write to one log collector: each line says which one wrote it.
  const logger = createLogger(
    config.logging?.level ?? CONFIG_DEFAULTS.logging.level,
    undefined,
    sharedStoreUrl(config, env) ? { replica: replicaId(env) } : undefined,
  );
  for (const warning of warnings) logger.warn(warning);
  const host = await createHost(config, {
    env,
    ...(file ? { configDir: dir } : {}),
    // Plugins installed with the package whose command this is (a distribution's), too.
    pluginDirs: [commandDirectory()].filter((d) => d !== undefined),
    pluginPackages: options.plugins ?? (env.TOOLHOST_PLUGINS ? commaList(env.TOOLHOST_PLUGINS) : undefined),
    logger,
    ...(unloadablePlugins ? { unloadablePlugins } : {}),
  });
  const allowEmpty = options.allowEmpty || env.TOOLHOST_ALLOW_EMPTY === '1';
  if (host.listTools().length === 0 && !allowEmpty) {
    await host.close();
    throw new Error(emptyCatalogMessage(host));
  }
  return { host, logger, ...(file ? { configFile: file } : {}) };
}
