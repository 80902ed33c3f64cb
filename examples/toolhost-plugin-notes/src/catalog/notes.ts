import { queryParam, type ToolDeclaration } from '@toolhost/core';
import { createNoteBody } from '../schemas/notes.js';
import { notesAuth as auth } from './auth.js';
import { noteId, paging, workspace } from './params.js';

/** One declaration per endpoint: data the host's engine executes, no request code. */
export const noteTools: ToolDeclaration[] = [
  {
    name: 'ListNotes',
    description:
      'List the notes of the workspace, newest first, optionally only those with a tag; paged by cursor.',
    method: 'GET',
    path: '/notes',
    auth,
    params: [workspace, queryParam('tag', 'Only notes with this tag.', { type: 'string' }), ...paging],
  },
  {
    name: 'GetNote',
    description: 'Get one note with its body and tags.',
    method: 'GET',
    path: '/notes/{noteId}',
    auth,
    params: [workspace, noteId],
  },
  {
    name: 'CreateNote',
    description: 'Create a note (title, optional body and tags) in the workspace.',
    method: 'POST',
    path: '/notes',
    auth,
    body: { kind: 'mode', schema: createNoteBody },
    params: [workspace],
  },
  {
    name: 'DeleteNote',
    description: 'Delete a note for good.',
    method: 'DELETE',
    path: '/notes/{noteId}',
    auth,
    params: [workspace, noteId],
  },
];
