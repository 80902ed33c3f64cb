import { quoted } from '@toolhost/engine/internal';
import type { Host } from '../host.js';
import { pluginManifestIn } from '../plugins/discover-plugins.js';

/** Where the command runs in a plugin's own package (one being written): how to load it. */
function ownPlugin(dir: string): string {
  const pkg = pluginManifestIn(dir);
  if (!pkg) return '';
  const name = typeof pkg.name === 'string' ? ` ${quoted(pkg.name)}` : '';
  return ` This directory is the plugin${name}: load it with --plugins . (once built).`;
}

/**
 * Why a host has no tool to serve, and what to do about it. A host with no tool is almost
 * always a mistake (no plugin installed where the host looks, or filters that match nothing),
 * and an agent connected to it would only see an empty list.
 */
export function emptyCatalogMessage(
  host: Pick<Host, 'plugins' | 'pluginSearch'>,
  cwd = process.cwd(),
): string {
  if (host.plugins.length > 0) {
    const names = host.plugins.map((p) => `${p.name} (${p.toolSet})`).join(', ');
    return `No tools to serve: the loaded plugins ${names} have tools, but the configuration hides all of them (tools.toolSets, tools.allow, tools.deny and tools.readOnly, or their flags --tool-sets, --allow, --deny and --read-only and TOOLHOST_* variables; toolSets.<set>.enabled). Loosen those filters, or pass --allow-empty to start anyway.`;
  }
  const where = host.pluginSearch.discovered
    ? `No toolhost plugin is installed where the host looks: ${host.pluginSearch.directories.join(', ') || '(no node_modules directory)'}.`
    : 'The configuration names no plugin to load.';
  return `No tools to serve. ${where}${ownPlugin(cwd)} Install a plugin beside the host (\`npm install -g @toolhost/plugin-crm-events\` for a global host) or in your project (\`npm install @toolhost/plugin-crm-events\`), or name plugins with --plugins, TOOLHOST_PLUGINS or the config's \`plugins\`. Pass --allow-empty to start anyway.`;
}
