import type { AuthProvider, SecretSource, TokenStore, ToolPlugin } from '@toolhost/core';
import type { HttpSender } from '@toolhost/engine';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from './logger.js';

/**
 * What `createHost` (host.ts) is given to compose a host: the plugins, the services that replace
 * its defaults, and where to look. Not on the `Host` API (host-api.ts): the transports see the
 * host made, never how it was made, nor the embedder's container.
 */
export interface HostOptions {
  /** Plugin objects to register directly, in addition to (or instead of) packages named in config. */
  plugins?: ToolPlugin[];
  /** Plugin packages (names, or paths from the working directory) to load instead of the config's `plugins` and discovery. */
  pluginPackages?: string[];
  /**
   * `skip`: a plugin package that cannot be imported is left out and listed in
   * `pluginSearch.unloadable`, so that diagnostics (`doctor`) still report on the others.
   * Default `refuse`: the host does not start.
   */
  unloadablePlugins?: 'refuse' | 'skip';
  /**
   * The embedder's tsyringe container: services registered in it under `HostServices` tokens
   * replace the host's defaults (the host works in a child container of it).
   */
  container?: DependencyContainer;
  /** Auth providers that replace the static-token stand-ins for their ids. */
  authProviders?: AuthProvider[];
  /** A secret source that replaces the config/environment one. */
  secrets?: SecretSource;
  /** Replaces the undici sender (tests, custom transports). */
  httpSender?: HttpSender;
  /** The config file's directory: relative paths in the config start there, and plugins are looked for beside it. */
  configDir?: string;
  /**
   * More directories to discover and resolve plugins from (each with its parents'
   * node_modules), after the config's, the working directory and the host package's own.
   */
  pluginDirs?: string[];
  /** Environment for overrides (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where OAuth tokens are kept (default: encrypted file with TOOLHOST_TOKEN_KEY, else memory). */
  tokenStore?: TokenStore;
  logger?: Logger;
}
