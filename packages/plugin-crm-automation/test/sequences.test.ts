import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import { suiteOptions } from './suite-options.js';

const cases: RequestCase[] = [
  {
    tool: 'CheckContactEnrollmentStatus',
    args: { contact_id: '501' },
    method: 'GET',
    path: '/automation/v4/sequences/enrollments/contact/501',
  },
  {
    tool: 'GetUserSequences',
    args: {},
    method: 'GET',
    path: '/automation/v4/sequences',
    query: [['userId', 'hs-user-42']],
  },
  {
    tool: 'EnrollContactInSequence',
    args: {
      contact_id: '501',
      sender_email: 'rep@example.com',
      sequence_identifier: 'seq-9',
      sender_alias_address: 'team@example.com',
    },
    method: 'POST',
    path: '/automation/v4/sequences/enrollments',
    query: [['userId', 'hs-user-42']],
    body: {
      contactId: '501',
      senderEmail: 'rep@example.com',
      sequenceId: 'seq-9',
      senderAliasAddress: 'team@example.com',
    },
  },
  {
    tool: 'GetSequenceDetails',
    args: { sequence_id: 'seq-9' },
    method: 'GET',
    path: '/automation/v4/sequences/seq-9',
    query: [['userId', 'hs-user-42']],
  },
];

const api = catalogSuite(suiteOptions);
const { call, errorOf } = api;

describe('CrmAutomationApi sequences and enrollments', () => {
  api.itSendsRequests(cases);

  it('names the missing userId setting and sends nothing', async () => {
    const result = await call('GetUserSequences', {}, 'unconfigured');
    expect(errorOf(result)).toMatchObject({
      code: 'configuration_error',
      message: expect.stringContaining('toolSets.CrmAutomationApi.settings.userId'),
    });
    expect(api.upstream.requests).toHaveLength(0);
  });

  api.itRejectsBadInput([]);

  api.itRejectsBadInput([
    [
      'invalid sender email',
      'EnrollContactInSequence',
      { contact_id: '1', sender_email: 'not-an-email', sequence_identifier: 's' },
      /'sender_email' must be a valid email/,
    ],
    [
      'missing required',
      'EnrollContactInSequence',
      { contact_id: '1', sender_email: 'a@b.co' },
      /'sequence_identifier' is required/,
    ],
  ]);
});
