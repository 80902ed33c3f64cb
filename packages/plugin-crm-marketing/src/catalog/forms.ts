import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import { createFormBody, replaceFormBody, updateFormBody } from '../schemas/campaigns.generated.js';
import { formsAuth as auth } from './auth-campaigns.js';

const toolSet = 'CrmMarketingApi';
const base = '/marketing/v3/forms';
const formPath = `${base}/{formId}`;

const formId = (name: string): ParamDeclaration => ({
  name,
  in: 'path',
  as: 'formId',
  required: true,
  schema: { type: 'string' },
  description: '',
});

export const formTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'GetFormById',
    description: 'One form definition.',
    method: 'GET',
    path: formPath,
    auth,
    params: [
      formId('form_id'),
      {
        name: 'return_archived_only',
        in: 'query',
        as: 'archived',
        schema: { type: 'boolean' },
        description: 'true for an archived form.',
      },
    ],
  },
  {
    toolSet,
    name: 'UpdateCrmForm',
    description: 'Replaces a whole form definition.',
    method: 'PUT',
    path: formPath,
    auth,
    body: { kind: 'mode', schema: replaceFormBody },
    params: [{ ...formId('crm_form_id'), required: false, mode: 'x' }],
  },
  {
    toolSet,
    name: 'UpdateCrmMarketingForm',
    description: 'Patches a form; unsent parts stay as they are.',
    method: 'PATCH',
    path: formPath,
    auth,
    body: { kind: 'mode', schema: updateFormBody },
    params: [{ ...formId('form_id'), required: false, mode: 'x' }],
  },
  {
    toolSet,
    name: 'ArchiveMarketingForm',
    description: 'Archives a form.',
    method: 'DELETE',
    path: formPath,
    auth,
    params: [formId('form_id')],
  },
  {
    toolSet,
    name: 'ListCrmForms',
    description: 'Lists forms.',
    method: 'GET',
    path: base,
    auth,
    params: [
      {
        name: 'included_form_types',
        in: 'query',
        as: 'formTypes',
        schema: {
          type: 'array',
          items: { type: 'string', enum: ['hubspot', 'captured', 'flow', 'blog_comment', 'all'] },
        },
        description: '',
      },
      {
        name: 'paging_cursor_token',
        in: 'query',
        as: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after.',
      },
      {
        name: 'results_per_page',
        in: 'query',
        as: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: '',
      },
      {
        name: 'return_only_archived_forms',
        in: 'query',
        as: 'archived',
        schema: { type: 'boolean' },
        description: '',
      },
    ],
  },
  {
    toolSet,
    name: 'CreateMarketingForm',
    description: 'Creates a form.',
    method: 'POST',
    path: base,
    auth,
    body: { kind: 'mode', schema: createFormBody },
  },
];
