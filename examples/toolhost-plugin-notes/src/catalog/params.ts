import { type JsonSchema, type ParamDeclaration, pathParam, queryParam } from '@toolhost/core';

/** The note in the path: the tool calls it `note_id`, the API `{noteId}`. */
export const noteId: ParamDeclaration = pathParam('note_id', 'noteId', 'Id of the note (n_…).');

/** `toolSets.NotesApi.settings`: the workspace every call works in. */
export const notesSettingsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { workspace: { type: 'string', minLength: 1, description: 'Workspace id (w_…).' } },
};

/** Filled from the settings, not by the agent: the API wants it on every request. */
export const workspace: ParamDeclaration = {
  name: 'workspace',
  in: 'header',
  apiName: 'X-Notes-Workspace',
  fromSetting: 'workspace',
  required: true,
  schema: { type: 'string' },
  description: 'Workspace the calls act in.',
};

/** Paging as the API does it: a page size and the cursor of the previous answer. */
export const paging: ParamDeclaration[] = [
  queryParam(
    'page_size',
    'Notes per page (1-100).',
    { type: 'integer', minimum: 1, maximum: 100 },
    { apiName: 'limit' },
  ),
  queryParam('cursor', 'The nextCursor of the previous page.', { type: 'string' }),
];
