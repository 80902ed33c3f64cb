import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe } from 'vitest';
import * as schemas from '../src/schemas/automation.generated.js';
import { suiteOptions } from './suite-options.js';

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
];

const modeSchemas: Record<string, unknown> = {
  CompleteActionExecution: schemas.completeCallbackBody,
  CompleteBatchActionExecutions: schemas.completeCallbacksBatchBody,
  GetWorkflows: schemas.flowsBatchReadBody,
  GetWorkflowIdMappings: schemas.workflowIdMappingsBatchReadBody,
};

const api = catalogSuite(suiteOptions);

const ALL_TOOLS = [
  'CompleteActionExecution',
  'CompleteBatchActionExecutions',
  'FetchEmailCampaigns',
  'GetWorkflows',
  'GetWorkflowIdMappings',
  'CheckContactEnrollmentStatus',
  'GetUserSequences',
  'EnrollContactInSequence',
  'GetSequenceDetails',
];

describe('CrmAutomationApi workflows and action callbacks', () => {
  api.itListsTools('lists the 9 tools; batch reads are read-only; userId is not a tool parameter', {
    exactly: ALL_TOOLS,
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

  api.itRejectsBadInput([]);

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
      'non-array flow ids',
      'FetchEmailCampaigns',
      { email_campaign_flow_ids: 'f1' },
      /'email_campaign_flow_ids' must be of type array/,
    ],
  ]);
});
