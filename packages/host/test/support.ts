import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT_VERSION, TOOL_SET, type ToolDeclaration, type ToolPlugin } from '@toolhost/core';

/** A directory whose node_modules holds fixture plugins (echo: compatible; future: contract 2.0). */
export const fixtureApp = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'app');

/** A tool-set plugin written inline (against the contract alone), for tests that need their own tools. */
export function inlinePlugin(
  toolSet: string,
  tools: readonly Omit<ToolDeclaration, 'toolSet'>[],
): ToolPlugin {
  return {
    contractVersion: CONTRACT_VERSION,
    name: `inline-${toolSet.toLowerCase()}`,
    version: '0.0.0',
    toolSet,
    register(container, options = {}) {
      container.register(TOOL_SET, {
        useValue: {
          toolSet,
          plugin: { name: `inline-${toolSet.toLowerCase()}`, version: '0.0.0' },
          servers: { default: options.baseUrl ?? 'https://inline.invalid' },
          tools: tools.map((t) => ({ ...t, toolSet })),
        },
      });
    },
  };
}
