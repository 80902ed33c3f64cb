import type { ToolDeclaration } from '@toolhost/core';
import { enrollmentsWriteAuth, sequencesReadAuth } from './auth.js';
import { hubspotUser } from './params.js';

export const sequenceTools: ToolDeclaration[] = [
  {
    name: 'CheckContactEnrollmentStatus',
    description: "HubSpot: a contact's sales sequence enrollment and its status.",
    method: 'GET',
    path: '/automation/v4/sequences/enrollments/contact/{contactId}',
    auth: sequencesReadAuth,
    params: [
      {
        name: 'contact_id',
        in: 'path',
        apiName: 'contactId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Contact id.',
      },
    ],
  },
  {
    name: 'GetUserSequences',
    description: 'HubSpot: list all sales sequences of the configured user.',
    method: 'GET',
    path: '/automation/v4/sequences',
    auth: sequencesReadAuth,
    params: [hubspotUser],
  },
  {
    name: 'EnrollContactInSequence',
    description:
      "HubSpot: enroll a contact in a sales sequence as the configured user, sent from a user's email address (or an alias of it).",
    method: 'POST',
    path: '/automation/v4/sequences/enrollments',
    auth: enrollmentsWriteAuth,
    body: { kind: 'fields' },
    params: [
      hubspotUser,
      {
        name: 'contact_id',
        in: 'body',
        bodyPath: 'contactId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Contact id.',
      },
      {
        name: 'sender_email',
        in: 'body',
        bodyPath: 'senderEmail',
        required: true,
        schema: { type: 'string', format: 'email' },
        description: "Email of the sender's HubSpot user.",
      },
      {
        name: 'sequence_identifier',
        in: 'body',
        bodyPath: 'sequenceId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Sequence id.',
      },
      {
        name: 'sender_alias_address',
        in: 'body',
        bodyPath: 'senderAliasAddress',
        schema: { type: 'string' },
        description: 'Send from this alias instead.',
      },
    ],
  },
  {
    name: 'GetSequenceDetails',
    description: 'HubSpot: get one sales sequence with its steps, as the configured user.',
    method: 'GET',
    path: '/automation/v4/sequences/{sequenceId}',
    auth: sequencesReadAuth,
    params: [
      {
        name: 'sequence_id',
        in: 'path',
        apiName: 'sequenceId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Sequence id.',
      },
      hubspotUser,
    ],
  },
];
