import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import { createFormBody, replaceFormBody, updateFormBody } from '../schemas/campaigns.generated.js';
import { formsAuth as auth } from './auth.js';

const base = '/marketing/v3/forms';
const formPath = `${base}/{formId}`;

const formId = (name: string): ParamDeclaration => ({
  name,
  in: 'path',
  apiName: 'formId',
  required: true,
  schema: { type: 'string' },
  description: '',
});

export const formTools: ToolDeclaration[] = [
  {
    name: 'GetFormById',
    description: 'HubSpot: get one form definition (fields, settings).',
    method: 'GET',
    path: formPath,
    auth,
    params: [
      formId('form_id'),
      {
        name: 'return_archived_only',
        in: 'query',
        apiName: 'archived',
        schema: { type: 'boolean' },
        description: 'true for an archived form.',
      },
    ],
  },
  {
    name: 'UpdateCrmForm',
    description: 'HubSpot: replace a whole form definition.',
    method: 'PUT',
    path: formPath,
    auth,
    body: { kind: 'mode', schema: replaceFormBody },
    params: [{ ...formId('crm_form_id'), required: false, executeOnly: 'required' }],
  },
  {
    name: 'UpdateCrmMarketingForm',
    description: 'HubSpot: update parts of a form; what is not sent stays as it is.',
    method: 'PATCH',
    path: formPath,
    auth,
    body: { kind: 'mode', schema: updateFormBody },
    params: [{ ...formId('form_id'), required: false, executeOnly: 'required' }],
  },
  {
    name: 'ArchiveMarketingForm',
    description: 'HubSpot: archive (delete) a form.',
    method: 'DELETE',
    path: formPath,
    auth,
    params: [formId('form_id')],
  },
  {
    name: 'ListCrmForms',
    description: 'HubSpot: list all forms, by type, archived or not, paged.',
    method: 'GET',
    path: base,
    auth,
    params: [
      {
        name: 'included_form_types',
        in: 'query',
        apiName: 'formTypes',
        schema: {
          type: 'array',
          items: { type: 'string', enum: ['hubspot', 'captured', 'flow', 'blog_comment', 'all'] },
        },
        description: '',
      },
      {
        name: 'paging_cursor_token',
        in: 'query',
        apiName: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after.',
      },
      {
        name: 'results_per_page',
        in: 'query',
        apiName: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: '',
      },
      {
        name: 'return_only_archived_forms',
        in: 'query',
        apiName: 'archived',
        schema: { type: 'boolean' },
        description: '',
      },
    ],
  },
  {
    name: 'CreateMarketingForm',
    description: 'HubSpot: create a form (signup, contact, lead capture).',
    method: 'POST',
    path: base,
    auth,
    body: { kind: 'mode', schema: createFormBody },
  },
];
