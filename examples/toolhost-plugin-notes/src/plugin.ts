import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { noteTools } from './catalog/notes.js';
import { notesSettingsSchema } from './catalog/params.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'NotesApi';

/** The NotesApi plugin; options bound here (e.g. a base URL) act as defaults under the host's config. */
export function createNotesPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      // The contract these declarations are written against, as a literal: it travels in this
      // package's build output, and a host that executes an older contract refuses the plugin.
      contractVersion: '2.0',
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      servers: { default: 'https://api.notes.example/v1' },
      tools: noteTools,
      settingsSchema: notesSettingsSchema,
      // The API allows 10 requests per second per workspace. The key names the API parameter
      // whose value picks the bucket; the workspace is fixed per host, so all calls share one.
      traffic: {
        pacing: { key: 'X-Notes-Workspace', requestsPerSecond: 10 },
        retryOnRateLimit: { defaultWaitSeconds: 1, maxWaitSeconds: 5 },
      },
    },
    options,
  );
}

/** The default export is what the host loads. */
export const notesPlugin: ToolPlugin = createNotesPlugin();
