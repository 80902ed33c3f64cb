import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { containerOf, createHost } from './host.js';
import { unknownToolMessage } from './unknown-tool.js';

const fixtureApp = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));

describe('one answer for a name that calls no tool', () => {
  it('names the right spelling, the key that hides the tool, or a close name, in both spellings', async () => {
    const host = await createHost(
      { plugins: ['toolhost-plugin-echo'], tools: { readOnly: true } },
      { configDir: fixtureApp, env: {} },
    );
    const exposed = new Set(host.listTools().map((t) => t.name));
    const say = (name: string, spelling: 'canonical' | 'mcp') =>
      unknownToolMessage(name, host.config, containerOf(host), exposed, spelling);

    expect(say('EchoApi_GetItem', 'canonical')).toBe(
      "No tool named 'EchoApi_GetItem': 'EchoApi_GetItem' is the MCP spelling; here tools are named 'EchoApi.GetItem'.",
    );
    expect(say('EchoApi.GetItem', 'mcp')).toBe(
      "No tool named 'EchoApi.GetItem': over MCP it is named 'EchoApi_GetItem'.",
    );
    expect(say('EchoApi.DeleteItem', 'canonical')).toBe(
      "The tool EchoApi.DeleteItem is loaded but hidden by this host's configuration (tools.readOnly).",
    );
    expect(say('EchoApi_DeleteItem', 'mcp')).toBe(
      "The tool EchoApi_DeleteItem is loaded but hidden by this host's configuration (tools.readOnly).",
    );
    expect(say('getitem', 'mcp')).toBe("No tool named 'getitem' is loaded. Did you mean 'EchoApi_GetItem'?");
    expect(say('Nope', 'canonical')).toBe("No tool named 'Nope' is loaded.");
    // A slip of an edit or two gets the name to use, in either spelling.
    expect(say('EchoApi.GetItm', 'canonical')).toBe(
      "No tool named 'EchoApi.GetItm' is loaded. Did you mean 'EchoApi.GetItem'?",
    );
    expect(say('EchoApi_GetItems', 'mcp')).toBe(
      "No tool named 'EchoApi_GetItems' is loaded. Did you mean 'EchoApi_GetItem'?",
    );
    // A near miss in the other spelling: the separator counts as no slip (it did, and the
    // start of a name was not found, as `GridApi_ListRecords` found no `GridApi.ListGridRecords`).
    expect(say('EchoApi_Get', 'canonical')).toBe(
      "No tool named 'EchoApi_Get' is loaded. Did you mean 'EchoApi.GetItem'?",
    );
    expect(say('EchoApi.Get', 'mcp')).toBe(
      "No tool named 'EchoApi.Get' is loaded. Did you mean 'EchoApi_GetItem'?",
    );
    expect(say('echoapi.getitem', 'mcp')).toBe(
      "No tool named 'echoapi.getitem' is loaded. Did you mean 'EchoApi_GetItem'?",
    );
    // The embedding API answers the same words.
    expect(await host.callTool('EchoApi.DeleteItem', { item_id: '1' })).toEqual({
      ok: false,
      error: {
        code: 'unknown_tool',
        retryable: false,
        message:
          "The tool EchoApi.DeleteItem is loaded but hidden by this host's configuration (tools.readOnly).",
      },
    });
    await host.close();
  });
});
