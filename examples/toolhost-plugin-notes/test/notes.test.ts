import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import { createNoteBody } from '../src/schemas/notes.js';

// The standard catalog tests of the testing kit: the real host (spawned over stdio) loads this
// package, a loopback upstream records every request, and each table row is one test.
const api = catalogSuite({
  plugin: 'toolhost-plugin-notes',
  toolSet: 'NotesApi',
  toolSetConfig: { settings: { workspace: 'w_team' } },
  env: { NOTES_API_KEY: 'notes-key-123' },
  authorization: 'Bearer notes-key-123',
  headers: { 'x-notes-workspace': 'w_team' },
  upstreamName: 'the Notes API',
  variants: { noWorkspace: { toolSetConfig: {} } },
});

const cases: RequestCase[] = [
  {
    tool: 'ListNotes',
    args: { tag: 'q3', page_size: 20, cursor: 'c-2' },
    method: 'GET',
    path: '/notes',
    query: [
      ['tag', 'q3'],
      ['limit', '20'],
      ['cursor', 'c-2'],
    ],
  },
  {
    tool: 'GetNote',
    args: { note_id: 'n_1/..' },
    method: 'GET',
    path: '/notes/n_1/..',
    rawPath: '/notes/n_1%2F..',
  },
  {
    tool: 'CreateNote',
    args: { mode: 'execute', request_body: JSON.stringify({ title: 'Plan', tags: ['q3'] }) },
    method: 'POST',
    path: '/notes',
    body: { title: 'Plan', tags: ['q3'] },
  },
  { tool: 'DeleteNote', args: { note_id: 'n_9' }, method: 'DELETE', path: '/notes/n_9' },
];

describe('NotesApi', () => {
  api.itListsTools('lists its four tools; reads are read-only and the workspace is no parameter', {
    exactly: ['ListNotes', 'GetNote', 'CreateNote', 'DeleteNote'],
    required: { GetNote: ['note_id'], CreateNote: ['mode'] },
    hints: { ListNotes: { readOnlyHint: true }, DeleteNote: { readOnlyHint: false, destructiveHint: true } },
  });
  api.itSendsRequests(cases);
  api.itReturnsRequestSchemas({ CreateNote: createNoteBody });
  api.itRejectsBadInput([
    ['a page size over 100', 'ListNotes', { page_size: 500 }, /page_size/, 'page_size'],
    ['no note id', 'GetNote', {}, /note_id/, 'note_id'],
    ['a body without a title', 'CreateNote', { mode: 'execute', request_body: '{"body":"x"}' }, /title/],
  ]);

  it('names the missing workspace setting instead of calling the API', async () => {
    const result = await api.call('ListNotes', {}, 'noWorkspace');
    expect(api.errorOf(result)).toMatchObject({
      code: 'configuration_error',
      message: expect.stringContaining('toolSets.NotesApi.settings.workspace'),
    });
    expect(api.upstream.requests).toHaveLength(0);
  });
});
