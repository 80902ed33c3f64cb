import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import { enrollmentsWriteAuth, sequencesReadAuth } from './auth.js';

const toolSet = 'CrmAutomationApi';

/**
 * HubSpot's sequences endpoints require the acting HubSpot user's id, which the spec's tools
 * do not take: it comes from `toolSets.CrmAutomationApi.settings.userId`.
 */
const hubspotUser: ParamDeclaration = {
  name: 'userId',
  in: 'query',
  fromSetting: 'userId',
  required: true,
  schema: { type: 'string' },
  description: 'HubSpot user id the sequence calls act as.',
};

export const sequenceTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'CheckContactEnrollmentStatus',
    description: "Get a contact's sequence enrollment status.",
    method: 'GET',
    path: '/automation/v4/sequences/enrollments/contact/{contactId}',
    auth: sequencesReadAuth,
    params: [
      {
        name: 'contact_id',
        in: 'path',
        as: 'contactId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Contact id.',
      },
    ],
  },
  {
    toolSet,
    name: 'GetUserSequences',
    description: 'List the sequences of the configured HubSpot user.',
    method: 'GET',
    path: '/automation/v4/sequences',
    auth: sequencesReadAuth,
    params: [hubspotUser],
  },
  {
    toolSet,
    name: 'EnrollContactInSequence',
    description: 'Enroll a contact in a sequence, sent from a HubSpot user email (or an alias of it).',
    method: 'POST',
    path: '/automation/v4/sequences/enrollments',
    auth: enrollmentsWriteAuth,
    body: { kind: 'fields' },
    params: [
      hubspotUser,
      {
        name: 'contact_id',
        in: 'body',
        as: 'contactId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Contact id.',
      },
      {
        name: 'sender_email',
        in: 'body',
        as: 'senderEmail',
        required: true,
        schema: { type: 'string', format: 'email' },
        description: "Email of the sender's HubSpot user.",
      },
      {
        name: 'sequence_identifier',
        in: 'body',
        as: 'sequenceId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Sequence id.',
      },
      {
        name: 'sender_alias_address',
        in: 'body',
        as: 'senderAliasAddress',
        schema: { type: 'string' },
        description: 'Send from this alias instead.',
      },
    ],
  },
  {
    toolSet,
    name: 'GetSequenceDetails',
    description: 'Get one sequence with its steps.',
    method: 'GET',
    path: '/automation/v4/sequences/{sequenceId}',
    auth: sequencesReadAuth,
    params: [
      {
        name: 'sequence_id',
        in: 'path',
        as: 'sequenceId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Sequence id.',
      },
      hubspotUser,
    ],
  },
];
