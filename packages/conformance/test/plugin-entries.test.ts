import { CONTRACT_VERSION, checkContractVersion, type ToolPlugin } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { pluginPackages, registeredToolSets } from '../src/plugins.js';

// Each plugin package as a host imports it: the built entry, its default export a plugin of
// this contract, its named exports the factory, the tool set name and the declarations.
describe.each(pluginPackages())('%s entry', (name) => {
  it('exports a plugin this contract executes as its default, and the factory that builds it', async () => {
    const mod = (await import(name)) as Record<string, unknown> & { default: ToolPlugin };
    expect(mod.default).toMatchObject({ name, toolSet: mod.TOOL_SET });
    expect(checkContractVersion(mod.default.contractVersion, CONTRACT_VERSION)).toEqual({ ok: true });
    const factory = Object.entries(mod).find(([k]) => /^create\w+Plugin$/.test(k))?.[1] as
      | ((o: object) => ToolPlugin)
      | undefined;
    expect(factory, 'a create…Plugin factory').toBeTypeOf('function');
    const bound = factory!({ baseUrl: 'http://127.0.0.1:9' });
    expect(registeredToolSets(bound)[0]!.servers.default).toBe('http://127.0.0.1:9');
    const tools = Object.entries(mod).find(([k]) => /Tools$/.test(k))?.[1] as unknown[] | undefined;
    expect(tools?.length).toBe(registeredToolSets(mod.default)[0]!.tools.length);
  });
});
