import type { ToolPlugin } from '@toolhost/core';
import type { BundleField } from './bundle-environment.js';
import type { HostConfig } from './host-config.js';

/** `CrmAutomationApi` + `userId` → `CRM_AUTOMATION_API_USER_ID`. */
export function settingEnvName(toolSet: string, setting: string): string {
  const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  return `${snake(toolSet)}_${snake(setting)}`.replace(/[^A-Z0-9]/g, '_');
}

/** An environment value as the setting's schema types it; a value of no such type is left for the settings check to refuse. */
function typed(value: string, type: unknown): unknown {
  if (type === 'integer' || type === 'number') return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/**
 * Plugin settings from the environment (`<TOOL_SET>_<SETTING>`), over the config file's, as
 * the environment wins everywhere else: how a deployment (or an MCP Bundle, which has no
 * config file) sets CrmAutomationApi's `userId`.
 */
export function applySettingsFromEnv<C extends HostConfig>(
  config: C,
  plugins: readonly ToolPlugin[],
  env: Readonly<Record<string, string | undefined>>,
): C {
  let toolSets = config.toolSets;
  for (const plugin of plugins) {
    for (const [setting, schema] of Object.entries(plugin.settingsSchema?.properties ?? {})) {
      const value = env[settingEnvName(plugin.toolSet, setting)];
      if (!value) continue;
      const current = toolSets?.[plugin.toolSet];
      toolSets = {
        ...toolSets,
        [plugin.toolSet]: {
          ...current,
          settings: { ...current?.settings, [setting]: typed(value, (schema as { type?: unknown }).type) },
        },
      };
    }
  }
  return toolSets === config.toolSets ? config : { ...config, toolSets };
}

/** What to do to give a tool set a setting: the bundle's field when running from one, else the config key or its variable. */
export function settingHint(
  toolSet: string,
  setting: string,
  fields: ReadonlyMap<string, BundleField>,
): string {
  const name = settingEnvName(toolSet, setting);
  const field = fields.get(name);
  return field
    ? `fill in the extension's “${field.title}” field`
    : `set toolSets.${toolSet}.settings.${setting} (or ${name})`;
}
