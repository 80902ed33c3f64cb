import type { ToolDeclaration } from '@toolhost/core';
import {
  completeCallbackBody,
  completeCallbacksBatchBody,
  flowsBatchReadBody,
  workflowIdMappingsBatchReadBody,
} from '../schemas/automation.generated.js';
import { automationAuth as auth } from './auth.js';

export const workflowTools: ToolDeclaration[] = [
  {
    name: 'CompleteActionExecution',
    description:
      'HubSpot workflows: complete one blocked custom action execution (callback) with its output fields, so the workflow resumes.',
    method: 'POST',
    path: '/automation/v4/actions/callbacks/{callbackId}/complete',
    auth,
    body: { kind: 'mode', schema: completeCallbackBody },
    params: [
      {
        name: 'action_execution_id',
        in: 'path',
        apiName: 'callbackId',
        executeOnly: 'required',
        schema: { type: 'string', minLength: 1 },
        description: 'Callback id of the blocked execution.',
      },
    ],
  },
  {
    name: 'CompleteBatchActionExecutions',
    description:
      'HubSpot workflows: complete several blocked custom action executions (callbacks) in one batch.',
    method: 'POST',
    path: '/automation/v4/actions/callbacks/complete',
    auth,
    body: { kind: 'mode', schema: completeCallbacksBatchBody },
  },
  {
    name: 'FetchEmailCampaigns',
    // The spec describes start/end dates, but the current API's after/before are paging
    // cursors: the values are passed through unchanged rather than forced into a date shape.
    description:
      'HubSpot: list the email campaigns sent by automation workflows. start_date/end_date_filter are sent as after/before, which the current API treats as paging cursors.',
    method: 'GET',
    path: '/automation/v4/flows/email-campaigns',
    auth,
    params: [
      {
        name: 'email_campaign_flow_ids',
        in: 'query',
        apiName: 'flowId',
        schema: { type: 'array', items: { type: 'string' } },
        description: 'Only these flow ids.',
      },
      {
        name: 'end_date_filter',
        in: 'query',
        apiName: 'before',
        schema: { type: 'string' },
        description: 'Sent as before.',
      },
      {
        name: 'max_results',
        in: 'query',
        apiName: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: 'Page size.',
      },
      {
        name: 'start_date',
        in: 'query',
        apiName: 'after',
        schema: { type: 'string' },
        description: 'Sent as after (e.g. paging.next.after).',
      },
    ],
  },
  {
    name: 'GetWorkflows',
    description:
      'HubSpot: read several automation workflows (flows) with their actions, by flow id in one batch (body {inputs:[{flowId, type:"FLOW_ID"}]}).',
    method: 'POST',
    path: '/automation/v4/flows/batch/read',
    auth,
    hints: { readOnly: true },
    body: { kind: 'mode', schema: flowsBatchReadBody },
  },
  {
    name: 'GetWorkflowIdMappings',
    description: 'HubSpot: map workflow ids between the legacy and current automation APIs, in a batch.',
    method: 'POST',
    path: '/automation/v4/workflow-id-mappings/batch/read',
    auth,
    hints: { readOnly: true },
    body: { kind: 'mode', schema: workflowIdMappingsBatchReadBody },
  },
];
