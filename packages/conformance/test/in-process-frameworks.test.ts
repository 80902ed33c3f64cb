import { ToolMessage } from '@langchain/core/messages';
import { Agent, RunContext, run, setTracingDisabled } from '@openai/agents-core';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';
import { createHost, type Host, type HostConfig } from '@toolhost/host';
import { tools as langChainTools } from '@toolhost/host/langchain';
import { tools as openAiAgentsTools } from '@toolhost/host/openai-agents';
import { type RecordingUpstream, startRecordingUpstream } from '@toolhost/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allPluginsRegistry, pluginPackages, toolSetsAt } from '../src/plugins.js';

// The in-process adapters for LangChain.js and the OpenAI Agents SDK, each tool run through the
// framework's own machinery (LangChain's `invoke`, which checks the schema and makes the
// ToolMessage; the Agents SDK's `invoke` with the JSON a model sends) against a loopback upstream.
const TOKENS = {
  CRM_AUTH_PROVIDER_TOKEN: 'in-process-token-1',
  GRID_AUTH_PROVIDER_TOKEN: 'in-process-token-2',
  CDP_API_KEY: 'in-process-key',
};
const LIST = 'GridApi_ListGridRecords';
const LIST_ARGS = {
  base_id: 'appAbCdEfGhIjKlMn',
  table_id_or_name: 'Tasks',
  maximum_records: 3,
  filter_by_formula: "{Status}='Done'",
};
const SEND = 'CrmEventsApi_SendEventData';
const EVENT = { eventName: 'pe1_signup', email: 'ada@example.com', properties: { plan: 'pro' } };
const SEND_ARGS = { mode: 'execute', request_body: JSON.stringify(EVENT) };
const DISCOVERY = ['apply_preview', 'call_tool', 'describe_tools', 'preview_tool_call', 'search_tools'];

let upstream: RecordingUpstream;
let config: HostConfig;
let host: Host;
/** The same tools with tools.confirmWrites: a person agrees before any write is sent. */
let guarded: Host;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const toolSets = toolSetsAt(await allPluginsRegistry(), upstream.url, { pacing: false as const });
  config = { plugins: pluginPackages(), toolSets };
  host = await createHost(config, { env: TOKENS });
  guarded = await createHost({ ...config, tools: { confirmWrites: true } }, { env: TOKENS });
});
afterAll(async () => {
  await host?.close();
  await guarded?.close();
  await upstream?.close();
});
beforeEach(() => upstream.reset());

type Options = Parameters<typeof langChainTools>[1];
/** An adapter's tools by name, each called as its framework calls it, answering the tool's output. */
type Adapter = (host: Host, options?: Options) => Map<string, (args: object) => Promise<unknown>>;

const adapters: [string, Adapter][] = [
  [
    'LangChain.js',
    (h, o) => new Map(langChainTools(h, o).map((t) => [t.name, (args: object) => t.invoke(args)])),
  ],
  [
    'the OpenAI Agents SDK',
    (h, o) =>
      new Map(
        openAiAgentsTools(h, o).map((t) => [
          t.name,
          (args: object) => t.invoke(new RunContext({}), JSON.stringify(args)),
        ]),
      ),
  ],
];

function expectListSent() {
  expect(upstream.requests).toHaveLength(1);
  const sent = upstream.requests[0]!;
  expect(sent).toMatchObject({ method: 'GET', path: `/${LIST_ARGS.base_id}/Tasks` });
  expect(sent.query).toEqual(
    expect.arrayContaining([
      ['maxRecords', '3'],
      ['filterByFormula', "{Status}='Done'"],
    ]),
  );
  expect(sent.headers.authorization).toBe(`Bearer ${TOKENS.GRID_AUTH_PROVIDER_TOKEN}`);
}

function expectEventSent() {
  expect(upstream.requests).toHaveLength(1);
  expect(upstream.requests[0]).toMatchObject({ method: 'POST', path: '/events/v3/send', body: EVENT });
  expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${TOKENS.CRM_AUTH_PROVIDER_TOKEN}`);
}

describe.each(adapters)('%s in process', (_framework, adapt) => {
  it('gives the discovery tools above the limit (auto, as over MCP), and they find and call a tool', async () => {
    const tools = adapt(host);
    expect([...tools.keys()].sort()).toEqual(DISCOVERY);
    const found = (await tools.get('search_tools')!({ query: 'list the records of an Airtable table' })) as {
      tools: { name: string }[];
    };
    expect(found.tools.map((t) => t.name)).toContain(LIST);
    const described = (await tools.get('describe_tools')!({ names: [LIST] })) as {
      tools: { name: string; inputSchema: { required: string[] } }[];
    };
    expect(described.tools[0]!.inputSchema.required).toEqual(['base_id', 'table_id_or_name']);
    expect(upstream.requests).toHaveLength(0);
    expect(await tools.get('call_tool')!({ name: LIST, arguments: LIST_ARGS })).toEqual({ ok: true });
    expectListSent();
  });

  it('lists the tools themselves within the limit, chosen by globs in either spelling', async () => {
    const tools = adapt(host, { only: ['GridApi.List*', 'CrmEventsApi_ListEventTypes'] });
    const expected = host
      .listTools()
      .filter((t) => t.name.startsWith('GridApi.List') || t.name === 'CrmEventsApi.ListEventTypes')
      .map((t) => t.name.replace('.', '_'));
    // Every one reads: no preview tools.
    expect([...tools.keys()].sort()).toEqual(expected.sort());
    expect(await tools.get(LIST)!(LIST_ARGS)).toEqual({ ok: true });
    expectListSent();
    // A tool set that writes comes with the preview tools, as over MCP; `static` never gives discovery tools.
    const events = adapt(host, { only: ['CrmEventsApi.*'], catalog: 'static' });
    expect(events.size).toBe(host.listTools().filter((t) => t.toolSet === 'CrmEventsApi').length + 2);
    expect([...events.keys()].filter((n) => !n.startsWith('CrmEventsApi_'))).toEqual([
      'preview_tool_call',
      'apply_preview',
    ]);
    // A slip in `only` would leave the agent without the tool: refused, with the name meant.
    expect(() => adapt(host, { only: ['GridApi.*', 'GridApi.ListGridRecord'] })).toThrow(
      /only: 'GridApi.ListGridRecord' matches no tool .* Did you mean 'GridApi.ListGridRecords'\?/,
    );
  });

  it('answers bad arguments with an error naming the parameter, sending nothing', async () => {
    const tools = adapt(host);
    const output = await tools.get('call_tool')!({ name: LIST, arguments: { table_id_or_name: 'Tasks' } });
    expect(output).toMatchObject({ error: { code: 'invalid_argument', parameter: 'base_id' } });
    expect((output as { error: { message: string } }).error.message).toContain('base_id');
    expect(await tools.get('call_tool')!({ name: 'GridApi_NoSuchTool' })).toMatchObject({
      error: { code: 'unknown_tool' },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('holds a write for the person (tools.confirmWrites), and sends it once applied', async () => {
    const tools = adapt(guarded, { only: [SEND] });
    expect([...tools.keys()].sort()).toEqual(['apply_preview', SEND, 'preview_tool_call'].sort());
    const held = (await tools.get(SEND)!(SEND_ARGS)) as {
      error: { code: string; preview: { preview_id: string; request: { method: string; body: unknown } } };
    };
    expect(held.error.code).toBe('confirmation_required');
    expect(held.error.preview.request).toMatchObject({ method: 'POST', body: EVENT });
    expect(upstream.requests).toHaveLength(0);
    expect(await tools.get('apply_preview')!({ preview_id: held.error.preview.preview_id })).toEqual({
      ok: true,
    });
    expectEventSent();
    // Applied once: the same preview again sends nothing.
    expect(await tools.get('apply_preview')!({ preview_id: held.error.preview.preview_id })).toMatchObject({
      error: { code: 'preview_used' },
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it('asks the embedder before a write where it can ask, and sends only on a yes', async () => {
    const asked: { tool: string; request: { method: string } }[] = [];
    let agree = false;
    const tools = adapt(guarded, {
      only: [SEND],
      confirm: async (write) => {
        asked.push(write);
        return agree;
      },
    });
    expect(await tools.get(SEND)!(SEND_ARGS)).toMatchObject({ error: { code: 'cancelled' } });
    expect(upstream.requests).toHaveLength(0);
    agree = true;
    expect(await tools.get(SEND)!(SEND_ARGS)).toEqual({ ok: true });
    expectEventSent();
    expect(asked.map((w) => [w.tool, w.request.method])).toEqual([
      ['CrmEventsApi.SendEventData', 'POST'],
      ['CrmEventsApi.SendEventData', 'POST'],
    ]);
  });
});

describe('LangChain.js specifics', () => {
  it("refuses arguments its schema check rejects with LangChain's own exception, naming the parameter", async () => {
    const [list] = langChainTools(host, { only: [LIST] });
    const refused = (await list!.invoke({ table_id_or_name: 'Tasks' }).catch((e: unknown) => e)) as Error;
    // By name: the host's copy of @langchain/core here is not this test's (other peers).
    expect(refused.constructor.name).toBe('ToolInputParsingException');
    expect(refused.message).toMatch(/required property "base_id"/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers a tool call with a ToolMessage: success, or the error with status error', async () => {
    const [list] = langChainTools(host, { only: [LIST] });
    const ok = await list!.invoke({ type: 'tool_call', id: 'call-1', name: LIST, args: LIST_ARGS });
    expect(ok).toBeInstanceOf(ToolMessage);
    expect(ok).toMatchObject({ status: 'success', tool_call_id: 'call-1', content: '{"ok":true}' });
    expectListSent();
    const callTool = langChainTools(host).find((t) => t.name === 'call_tool')!;
    const failed = (await callTool.invoke({
      type: 'tool_call',
      id: 'call-2',
      name: 'call_tool',
      args: { name: LIST, arguments: {} },
    })) as ToolMessage;
    expect(failed).toBeInstanceOf(ToolMessage);
    expect(failed).toMatchObject({ status: 'error', tool_call_id: 'call-2', name: 'call_tool' });
    expect(JSON.parse(failed.content as string)).toMatchObject({ error: { code: 'invalid_argument' } });
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('OpenAI Agents SDK specifics', () => {
  it("runs in the SDK's agent loop: strict arguments with nulls, an error the model reads, a corrected call", async () => {
    setTracingDisabled(true);
    const [list] = openAiAgentsTools(host, { only: [LIST] });
    expect(list!.strict).toBe(true);
    // A strict model sends every property, null for those it leaves out; the SDK strips the nulls.
    const properties = Object.keys((list!.parameters as { properties: object }).properties);
    const strictArgs = (given: Record<string, unknown>) =>
      Object.fromEntries(properties.map((p) => [p, given[p] ?? null]));
    const model = new ScriptedModel([
      [functionCall(LIST, strictArgs({ table_id_or_name: 'Tasks' }), { callId: 'call-1' })],
      [functionCall(LIST, strictArgs(LIST_ARGS), { callId: 'call-2' })],
      [assistantMessage('Three tasks are done.')],
    ]);
    const result = await run(new Agent({ name: 'grid', model, tools: [list!] }), 'Which tasks are done?');
    expect(result.finalOutput).toBe('Three tasks are done.');
    expect(model.calls[0]!.request.tools).toMatchObject([{ type: 'function', name: LIST, strict: true }]);
    const outputs = model.calls[2]!.request.input as { type: string; callId: string; output: unknown }[];
    const outputOf = (callId: string) =>
      JSON.stringify(outputs.find((i) => i.type === 'function_call_result' && i.callId === callId)?.output);
    expect(outputOf('call-1')).toMatch(/invalid_argument.*base_id/);
    expect(outputOf('call-2')).toContain('ok');
    // Only the corrected call was sent, with no trace of the nulls.
    expectListSent();
    expect(upstream.requests[0]!.query.map(([k]) => k).sort()).toEqual(['filterByFormula', 'maxRecords']);
  });

  it('makes a tool strict where strict mode keeps its schema, and non-strict where it would close an open object', () => {
    const byName = new Map(openAiAgentsTools(host).map((t) => [t.name, t]));
    expect(byName.get('search_tools')?.strict).toBe(true);
    // call_tool's `arguments` takes any object: strict mode would close it.
    expect(byName.get('call_tool')?.strict).toBe(false);
    expect(byName.get('call_tool')?.parameters).toMatchObject({
      properties: { arguments: { type: 'object' } },
    });
    const [events] = openAiAgentsTools(host, { only: ['CrmEventsApi.ListEventTypes'] });
    expect(events).toMatchObject({ type: 'function', name: 'CrmEventsApi_ListEventTypes', strict: true });
  });
});
