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
  description: 'Form id.',
});

export const formTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'GetFormById',
    description: 'Get one form definition.',
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
        description: 'true to get an archived form.',
      },
    ],
  },
  {
    toolSet,
    name: 'UpdateCrmForm',
    description: 'Replace a whole form definition (all fields).',
    method: 'PUT',
    path: formPath,
    auth,
    body: { kind: 'mode', schema: replaceFormBody },
    params: [{ ...formId('crm_form_id'), required: false, mode: 'x' }],
  },
  {
    toolSet,
    name: 'UpdateCrmMarketingForm',
    description: 'Update some components of a form; others stay as they are.',
    method: 'PATCH',
    path: formPath,
    auth,
    body: { kind: 'mode', schema: updateFormBody },
    params: [{ ...formId('form_id'), required: false, mode: 'x' }],
  },
  {
    toolSet,
    name: 'ArchiveMarketingForm',
    description: 'Archive a form.',
    method: 'DELETE',
    path: formPath,
    auth,
    params: [formId('form_id')],
  },
  {
    toolSet,
    name: 'ListCrmForms',
    description: 'List forms, optionally by type or archived only; paged by paging.next.after.',
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
        description: 'Form types to include.',
      },
      {
        name: 'paging_cursor_token',
        in: 'query',
        as: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after value.',
      },
      {
        name: 'results_per_page',
        in: 'query',
        as: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: 'Page size.',
      },
      {
        name: 'return_only_archived_forms',
        in: 'query',
        as: 'archived',
        schema: { type: 'boolean' },
        description: 'true lists archived forms only.',
      },
    ],
  },
  {
    toolSet,
    name: 'CreateMarketingForm',
    description: 'Create a form.',
    method: 'POST',
    path: base,
    auth,
    body: { kind: 'mode', schema: createFormBody },
  },
];
