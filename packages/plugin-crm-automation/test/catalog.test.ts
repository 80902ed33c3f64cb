import {
  type RecordingUpstream,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/host/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as schemas from '../src/request-schemas.generated.js';

const TOKEN = 'hubspot-automation-token-77';

interface Case {
  tool: string;
  args: Record<string, unknown>;
  method: string;
  path: string;
  query?: [string, string][];
  body?: unknown;
}

const callback = { outputFields: { hs_execution_state: 'SUCCESS' }, typedOutputs: {} };
const flows = { inputs: [{ flowId: '123', type: 'FLOW_ID' }] };

const cases: Case[] = [
  {
    tool: 'CompleteActionExecution',
    args: { mode: 'execute', action_execution_id: 'cb-1', request_body: JSON.stringify(callback) },
    method: 'POST',
    path: '/automation/v4/actions/callbacks/cb-1/complete',
    body: callback,
  },
  {
    tool: 'CompleteBatchActionExecutions',
    args: {
      mode: 'execute',
      request_body: JSON.stringify({ inputs: [{ callbackId: 'cb-1', ...callback }] }),
    },
    method: 'POST',
    path: '/automation/v4/actions/callbacks/complete',
    body: { inputs: [{ callbackId: 'cb-1', ...callback }] },
  },
  {
    tool: 'FetchEmailCampaigns',
    args: {
      email_campaign_flow_ids: ['f1', 'f2'],
      end_date_filter: '2024-12-31',
      max_results: 20,
      start_date: '2024-01-01',
    },
    method: 'GET',
    path: '/automation/v4/flows/email-campaigns',
    query: [
      ['flowId', 'f1'],
      ['flowId', 'f2'],
      ['before', '2024-12-31'],
      ['limit', '20'],
      ['after', '2024-01-01'],
    ],
  },
  {
    tool: 'GetWorkflows',
    args: { mode: 'execute', request_body: JSON.stringify(flows) },
    method: 'POST',
    path: '/automation/v4/flows/batch/read',
    body: flows,
  },
  {
    tool: 'GetWorkflowIdMappings',
    args: { mode: 'execute', request_body: JSON.stringify(flows) },
    method: 'POST',
    path: '/automation/v4/workflow-id-mappings/batch/read',
    body: flows,
  },
  {
    tool: 'CheckContactEnrollmentStatus',
    args: { contact_id: '501' },
    method: 'GET',
    path: '/automation/v4/sequences/enrollments/contact/501',
  },
  {
    tool: 'GetUserSequences',
    args: {},
    method: 'GET',
    path: '/automation/v4/sequences',
    query: [['userId', 'hs-user-42']],
  },
  {
    tool: 'EnrollContactInSequence',
    args: {
      contact_id: '501',
      sender_email: 'rep@example.com',
      sequence_identifier: 'seq-9',
      sender_alias_address: 'team@example.com',
    },
    method: 'POST',
    path: '/automation/v4/sequences/enrollments',
    query: [['userId', 'hs-user-42']],
    body: {
      contactId: '501',
      senderEmail: 'rep@example.com',
      sequenceId: 'seq-9',
      senderAliasAddress: 'team@example.com',
    },
  },
  {
    tool: 'GetSequenceDetails',
    args: { sequence_id: 'seq-9' },
    method: 'GET',
    path: '/automation/v4/sequences/seq-9',
    query: [['userId', 'hs-user-42']],
  },
];

const modeSchemas: Record<string, unknown> = {
  CompleteActionExecution: schemas.completeCallbackBody,
  CompleteBatchActionExecutions: schemas.completeCallbacksBatchBody,
  GetWorkflows: schemas.flowsBatchReadBody,
  GetWorkflowIdMappings: schemas.workflowIdMappingsBatchReadBody,
};

let upstream: RecordingUpstream;
let host: SpawnedHost;
let unconfigured: SpawnedHost;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const toolSets = { CrmAutomationApi: { baseUrl: upstream.url, settings: { userId: 'hs-user-42' } } };
  host = await spawnHost(
    { plugins: ['@toolhost/plugin-crm-automation'], toolSets },
    { env: { CRM_AUTH_PROVIDER_TOKEN: TOKEN } },
  );
  unconfigured = await spawnHost(
    {
      plugins: ['@toolhost/plugin-crm-automation'],
      toolSets: { CrmAutomationApi: { baseUrl: upstream.url } },
    },
    { env: { CRM_AUTH_PROVIDER_TOKEN: TOKEN } },
  );
});
afterAll(async () => {
  await host?.close();
  await unconfigured?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: { results: [] } }));
});

const call = (tool: string, args: Record<string, unknown>, h: SpawnedHost = host) =>
  h.client.callTool({ name: `CrmAutomationApi_${tool}`, arguments: args });
const errorOf = (r: unknown) =>
  (r as { structuredContent: { error: { code: string; message: string } } }).structuredContent.error;

describe('CrmAutomationApi over MCP', () => {
  it('lists the 9 tools; batch reads are read-only; userId is not a tool parameter', async () => {
    const { tools } = await host.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(cases.map((c) => `CrmAutomationApi_${c.tool}`).sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('CrmAutomationApi_GetWorkflows')!.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('CrmAutomationApi_GetWorkflowIdMappings')!.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('CrmAutomationApi_EnrollContactInSequence')!.annotations?.readOnlyHint).toBe(false);
    expect(
      Object.keys(byName.get('CrmAutomationApi_GetSequenceDetails')!.inputSchema.properties ?? {}),
    ).toEqual(['sequence_id']);
    expect(byName.get('CrmAutomationApi_EnrollContactInSequence')!.inputSchema.required).toEqual([
      'contact_id',
      'sender_email',
      'sequence_identifier',
    ]);
  });

  it.each(cases)('$tool sends exactly the request HubSpot expects', async (c) => {
    const result = await call(c.tool, c.args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    const req = upstream.requests[0]!;
    expect(req.method).toBe(c.method);
    expect(req.path).toBe(c.path);
    expect(req.query).toEqual(c.query ?? []);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.body).toEqual(c.body);
  });

  it.each(Object.entries(modeSchemas))(
    '%s get_request_schema returns the body schema and sends nothing',
    async (tool, schema) => {
      const result = await call(tool, { mode: 'get_request_schema' });
      expect(result.structuredContent).toEqual({ schema });
      expect(upstream.requests).toHaveLength(0);
    },
  );
});

describe('CrmAutomationApi bad input', () => {
  it('names the missing userId setting and sends nothing', async () => {
    const result = await call('GetUserSequences', {}, unconfigured);
    expect(errorOf(result)).toMatchObject({
      code: 'configuration_error',
      message: expect.stringContaining('toolSets.CrmAutomationApi.settings.userId'),
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it.each([
    ['invalid JSON', 'GetWorkflows', { mode: 'execute', request_body: '{"inputs": [' }, /not valid JSON/],
    [
      'schema violation',
      'GetWorkflows',
      { mode: 'execute', request_body: '{"inputs": [{"flowId": "1", "type": "OTHER"}]}' },
      /request_body\.inputs\[0\]/,
    ],
    [
      'missing (x) callback id',
      'CompleteActionExecution',
      { mode: 'execute', request_body: JSON.stringify(callback) },
      /'action_execution_id' is required when mode is execute/,
    ],
    [
      'invalid sender email',
      'EnrollContactInSequence',
      { contact_id: '1', sender_email: 'not-an-email', sequence_identifier: 's' },
      /'sender_email' must be a valid email/,
    ],
    [
      'missing required',
      'EnrollContactInSequence',
      { contact_id: '1', sender_email: 'a@b.co' },
      /'sequence_identifier' is required/,
    ],
    [
      'non-array flow ids',
      'FetchEmailCampaigns',
      { email_campaign_flow_ids: 'f1' },
      /'email_campaign_flow_ids' must be of type array/,
    ],
  ])('%s is a clear invalid_argument error', async (_label, tool, args, pattern) => {
    const result = await call(tool as string, args as Record<string, unknown>);
    expect(errorOf(result)).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(pattern as RegExp),
    });
    expect(upstream.requests).toHaveLength(0);
  });
});
