import type { JsonSchema } from '@toolhost/core';

/** POST /notes: the body a mode tool validates before sending (hand-written here; generated for big APIs). */
export const createNoteBody: JsonSchema = {
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    body: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
  },
};
