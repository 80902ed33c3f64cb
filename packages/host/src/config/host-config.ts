import type { PluginOptions } from '@toolhost/core';
import type { HostConfig, ToolSetConfig } from './host-config.generated.js';

// The types are generated from the config schema (config-schema.ts), the one source of the
// config's shape, defaults and reference; see scripts/generate-config-reference.mjs.
export type {
  AuthProviderConfig,
  HostConfig,
  ResolvedHostConfig,
  ToolSetConfig,
} from './host-config.generated.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * A tool set's config is what its plugin accepts (core's `PluginOptions`) plus `enabled`, the
 * host's own switch; it is handed over whole, so this fails to compile if the two drift apart.
 */
const _inStep: Same<Required<Omit<ToolSetConfig, 'enabled'>>, Required<PluginOptions>> = true;

/** What a plugin is given: its tool set's config without the host's `enabled`. */
export function pluginOptionsOf(config: ToolSetConfig | undefined): PluginOptions {
  const { enabled: _enabled, ...options } = config ?? {};
  return options;
}

/** Typed helper for config files written in TypeScript or JavaScript. */
export function defineConfig(config: HostConfig): HostConfig {
  return config;
}
