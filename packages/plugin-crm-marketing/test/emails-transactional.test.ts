import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/emails.generated.js';
import { suiteOptions } from './suite-options.js';

const email = { name: 'Spring launch', subject: 'Hello', language: 'en-us' };
const send = { emailId: 4711, message: { to: 'ann@example.com', cc: ['bob@example.com'] } };

const cases: RequestCase[] = [
  {
    tool: 'GetEmailStatistics',
    args: {},
    method: 'GET',
    path: '/marketing/v3/emails/statistics/list',
  },
  {
    tool: 'FetchEmailStatistics',
    args: {},
    method: 'GET',
    path: '/marketing/v3/emails/statistics/histogram',
  },
  { tool: 'CrmMarketingEmailFilter', args: {}, method: 'GET', path: '/marketing/v3/emails' },
  {
    tool: 'CreateMarketingEmail',
    args: { mode: 'execute', request_body: JSON.stringify(email) },
    method: 'POST',
    path: '/marketing/v3/emails',
    body: email,
  },
  {
    tool: 'GetMarketingEmailDetails',
    args: { email_id: '101' },
    method: 'GET',
    path: '/marketing/v3/emails/101',
  },
  {
    tool: 'UpdateMarketingEmailProperties',
    args: { mode: 'execute', email_identifier: '102', request_body: JSON.stringify({ subject: 'New' }) },
    method: 'PATCH',
    path: '/marketing/v3/emails/102',
    body: { subject: 'New' },
  },
  {
    tool: 'DeleteMarketingEmail',
    args: { email_id: '103' },
    method: 'DELETE',
    path: '/marketing/v3/emails/103',
  },
  {
    tool: 'PublishCrmEmail',
    args: { crm_email_id: '104' },
    method: 'POST',
    path: '/marketing/v3/emails/104/publish',
  },
  {
    tool: 'UnpublishMarketingEmail',
    args: { email_identifier: '105' },
    method: 'POST',
    path: '/marketing/v3/emails/105/unpublish',
  },
  {
    tool: 'CloneCrmEmail',
    args: { original_email_id: '106', cloned_email_name: 'Copy', email_language: 'de' },
    method: 'POST',
    path: '/marketing/v3/emails/clone',
    body: { id: '106', cloneName: 'Copy', language: 'de' },
  },
  {
    tool: 'CreateAbTestEmailVariation',
    args: { email_content_id: '107', variation_name: 'Variant B' },
    method: 'POST',
    path: '/marketing/v3/emails/ab-test/create-variation',
    body: { contentId: '107', variationName: 'Variant B' },
  },
  {
    tool: 'GetEmailAbTestVariation',
    args: { email_identifier: '108' },
    method: 'GET',
    path: '/marketing/v3/emails/108/ab-test/get-variation',
  },
  {
    tool: 'RetrieveEmailDraft',
    args: { email_id: '109' },
    method: 'GET',
    path: '/marketing/v3/emails/109/draft',
  },
  {
    tool: 'UpdateEmailDraft',
    args: { mode: 'execute', email_id: '110', request_body: JSON.stringify({ name: 'Draft name' }) },
    method: 'PATCH',
    path: '/marketing/v3/emails/110/draft',
    body: { name: 'Draft name' },
  },
  {
    tool: 'ResetEmailDraftToLive',
    args: { email_id: '111' },
    method: 'POST',
    path: '/marketing/v3/emails/111/draft/reset',
  },
  {
    tool: 'GetEmailRevisions',
    args: { email_id: '112' },
    method: 'GET',
    path: '/marketing/v3/emails/112/revisions',
  },
  {
    tool: 'GetMarketingEmailRevision',
    args: { email_id: '113', email_revision_id: 'r-7' },
    method: 'GET',
    path: '/marketing/v3/emails/113/revisions/r-7',
  },
  {
    tool: 'RestoreEmailRevision',
    args: { email_id: '114', revision_id: '8' },
    method: 'POST',
    path: '/marketing/v3/emails/114/revisions/8/restore',
  },
  {
    tool: 'RestoreEmailRevisionToDraft',
    args: { email_identifier: '115', revision_id: '9' },
    method: 'POST',
    path: '/marketing/v3/emails/115/revisions/9/restore-to-draft',
  },
  {
    tool: 'SendMarketingEmail',
    args: { mode: 'execute', request_body: JSON.stringify(send) },
    method: 'POST',
    path: '/marketing/v4/email/single-send',
    body: send,
  },
  {
    tool: 'SendTransactionalEmail',
    args: { mode: 'execute', request_body: JSON.stringify(send) },
    method: 'POST',
    path: '/marketing/v3/transactional/single-email/send',
    body: send,
  },
  {
    tool: 'QuerySmtpTokens',
    args: {
      campaign_name: 'Receipts',
      email_campaign_id: 'ec-1',
      maximum_tokens_to_return: 25,
      result_pagination_start: 'cursor-2',
    },
    method: 'GET',
    path: '/marketing/v3/transactional/smtp-tokens',
    query: [
      ['campaignName', 'Receipts'],
      ['emailCampaignId', 'ec-1'],
      ['limit', '25'],
      ['after', 'cursor-2'],
    ],
  },
  {
    tool: 'CreateSmtpApiToken',
    args: { campaign_name: 'Receipts', create_contact_for_recipients: false },
    method: 'POST',
    path: '/marketing/v3/transactional/smtp-tokens',
    body: { campaignName: 'Receipts', createContact: false },
  },
  {
    tool: 'ResetPasswordForToken',
    args: { token_identifier: 'tok-1' },
    method: 'POST',
    path: '/marketing/v3/transactional/smtp-tokens/tok-1/password-reset',
  },
  {
    tool: 'GetSmtpTokenById',
    args: { smtp_token_id: 'tok-2' },
    method: 'GET',
    path: '/marketing/v3/transactional/smtp-tokens/tok-2',
  },
  {
    tool: 'DeleteSmtpToken',
    args: { smtp_token_id: 'tok-3' },
    method: 'DELETE',
    path: '/marketing/v3/transactional/smtp-tokens/tok-3',
  },
];

const modeSchemas: Record<string, unknown> = {
  CreateMarketingEmail: schemas.createEmailBody,
  UpdateMarketingEmailProperties: schemas.updateEmailBody,
  UpdateEmailDraft: schemas.updateEmailDraftBody,
  SendMarketingEmail: schemas.marketingSingleSendBody,
  SendTransactionalEmail: schemas.transactionalSingleSendBody,
};

/** Required tool parameters per tool (mode tools: only `mode`). */
const requiredParams: Record<string, string[] | undefined> = {
  GetEmailStatistics: undefined,
  FetchEmailStatistics: undefined,
  CrmMarketingEmailFilter: undefined,
  CreateMarketingEmail: ['mode'],
  GetMarketingEmailDetails: ['email_id'],
  UpdateMarketingEmailProperties: ['mode'],
  DeleteMarketingEmail: ['email_id'],
  PublishCrmEmail: ['crm_email_id'],
  UnpublishMarketingEmail: ['email_identifier'],
  CloneCrmEmail: ['original_email_id'],
  CreateAbTestEmailVariation: ['email_content_id', 'variation_name'],
  GetEmailAbTestVariation: ['email_identifier'],
  RetrieveEmailDraft: ['email_id'],
  UpdateEmailDraft: ['mode'],
  ResetEmailDraftToLive: ['email_id'],
  GetEmailRevisions: ['email_id'],
  GetMarketingEmailRevision: ['email_id', 'email_revision_id'],
  RestoreEmailRevision: ['email_id', 'revision_id'],
  RestoreEmailRevisionToDraft: ['email_identifier', 'revision_id'],
  SendMarketingEmail: ['mode'],
  SendTransactionalEmail: ['mode'],
  QuerySmtpTokens: undefined,
  CreateSmtpApiToken: ['campaign_name', 'create_contact_for_recipients'],
  ResetPasswordForToken: ['token_identifier'],
  GetSmtpTokenById: ['smtp_token_id'],
  DeleteSmtpToken: ['smtp_token_id'],
};

const api = catalogSuite(suiteOptions);
const { call } = api;

describe('CrmMarketingApi marketing emails, transactional email and SMTP tokens over MCP', () => {
  api.itListsTools(
    'lists the 26 tools with their required parameters',
    {
      required: requiredParams,
      properties: {
        GetEmailStatistics: [],
        UpdateEmailDraft: ['mode', 'request_body', 'email_id'],
        QuerySmtpTokens: [
          'campaign_name',
          'email_campaign_id',
          'maximum_tokens_to_return',
          'result_pagination_start',
        ],
      },
      hints: {
        GetEmailRevisions: { readOnlyHint: true },
        PublishCrmEmail: { readOnlyHint: false },
        DeleteSmtpToken: { destructiveHint: true },
      },
    },
    () => {
      expect(Object.keys(requiredParams)).toHaveLength(26);
      expect(cases).toHaveLength(26);
    },
  );

  api.itSendsRequests(cases);

  api.itReturnsRequestSchemas(modeSchemas);

  it('escapes ids in the path', async () => {
    const result = await call('GetSmtpTokenById', { smtp_token_id: 'a/b?c' });
    expect(result.isError).toBeFalsy();
    expect(api.upstream.requests[0]!.rawPath).toBe('/marketing/v3/transactional/smtp-tokens/a%2Fb%3Fc');
  });
});

describe('CrmMarketingApi emails and SMTP tokens bad input', () => {
  api.itRejectsBadInput([
    ['missing required id', 'GetMarketingEmailDetails', {}, /'email_id' is required/],
    ['empty id', 'DeleteSmtpToken', { smtp_token_id: '' }, /'smtp_token_id'/],
    [
      'missing second required',
      'CreateAbTestEmailVariation',
      { email_content_id: '1' },
      /'variation_name' is required/,
    ],
    [
      'unknown parameter',
      'GetEmailStatistics',
      { startTimestamp: '2024-01-01T00:00:00Z' },
      /Unknown parameter 'startTimestamp'/,
    ],
    [
      'invalid JSON request_body',
      'SendTransactionalEmail',
      { mode: 'execute', request_body: '{"emailId": 1,' },
      /'request_body' is not valid JSON/,
    ],
    [
      'schema-violating body (string emailId, no recipient)',
      'SendMarketingEmail',
      { mode: 'execute', request_body: JSON.stringify({ emailId: 'x', message: {} }) },
      /request_body\.emailId must be of type integer.*request_body\.message\.to is required/,
    ],
    [
      'schema-violating body (wrong language)',
      'CreateMarketingEmail',
      { mode: 'execute', request_body: JSON.stringify({ name: 'n', language: 'klingon' }) },
      /request_body\.language must be one of/,
    ],
    [
      'missing request_body',
      'UpdateMarketingEmailProperties',
      { mode: 'execute', email_identifier: '1' },
      /'request_body' is required when mode is execute/,
    ],
    [
      'missing (x) email id',
      'UpdateEmailDraft',
      { mode: 'execute', request_body: '{}' },
      /'email_id' is required when mode is execute/,
    ],
    [
      'boolean as a string',
      'CreateSmtpApiToken',
      { campaign_name: 'c', create_contact_for_recipients: 'true' },
      /'create_contact_for_recipients' must be of type boolean/,
    ],
    [
      'non-integer page size',
      'QuerySmtpTokens',
      { maximum_tokens_to_return: 2.5 },
      /'maximum_tokens_to_return' must be of type integer/,
    ],
    ['zero page size', 'QuerySmtpTokens', { maximum_tokens_to_return: 0 }, /'maximum_tokens_to_return'/],
    [
      'non-numeric revision for restore-to-draft',
      'RestoreEmailRevisionToDraft',
      { email_identifier: '1', revision_id: 'abc' },
      /'revision_id'/,
    ],
    ['invalid mode', 'SendMarketingEmail', { mode: 'run' }, /'mode' must be one of/],
  ]);
});
