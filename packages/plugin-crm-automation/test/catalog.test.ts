import { catalogSuite, type RequestCase } from '@toolhost/host/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/automation.generated.js';

const TOKEN = 'hubspot-automation-token-77';

const callback = { outputFields: { hs_execution_state: 'SUCCESS' }, typedOutputs: {} };
const flows = { inputs: [{ flowId: '123', type: 'FLOW_ID' }] };

const cases: RequestCase[] = [
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

const api = catalogSuite({
  plugin: '@toolhost/plugin-crm-automation',
  toolSet: 'CrmAutomationApi',
  toolSetConfig: { settings: { userId: 'hs-user-42' } },
  env: { CRM_AUTH_PROVIDER_TOKEN: TOKEN },
  authorization: `Bearer ${TOKEN}`,
  upstreamName: 'HubSpot',
  response: { status: 200, body: { results: [] } },
  variants: { unconfigured: { toolSetConfig: {} } },
});
const { call, errorOf } = api;

describe('CrmAutomationApi over MCP', () => {
  api.itListsTools('lists the 9 tools; batch reads are read-only; userId is not a tool parameter', {
    exactly: cases.map((c) => c.tool),
    hints: {
      GetWorkflows: { readOnlyHint: true },
      GetWorkflowIdMappings: { readOnlyHint: true },
      EnrollContactInSequence: { readOnlyHint: false },
    },
    properties: { GetSequenceDetails: ['sequence_id'] },
    required: { EnrollContactInSequence: ['contact_id', 'sender_email', 'sequence_identifier'] },
  });

  api.itSendsRequests(cases);

  api.itReturnsRequestSchemas(modeSchemas);
});

describe('CrmAutomationApi bad input', () => {
  it('names the missing userId setting and sends nothing', async () => {
    const result = await call('GetUserSequences', {}, 'unconfigured');
    expect(errorOf(result)).toMatchObject({
      code: 'configuration_error',
      message: expect.stringContaining('toolSets.CrmAutomationApi.settings.userId'),
    });
    expect(api.upstream.requests).toHaveLength(0);
  });

  api.itRejectsBadInput([
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
  ]);
});
