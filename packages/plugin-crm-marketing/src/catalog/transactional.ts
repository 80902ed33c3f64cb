import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import { marketingSingleSendBody, transactionalSingleSendBody } from '../schemas/emails.generated.js';
import { transactionalAuth as auth, singleSendAuth } from './auth.js';

/** The SMTP API token id in the path (`{tokenId}`). */
function tokenIdParam(name: string): ParamDeclaration {
  return {
    name,
    in: 'path',
    apiName: 'tokenId',
    required: true,
    schema: { type: 'string', minLength: 1 },
    description: '',
  };
}

export const transactionalTools: ToolDeclaration[] = [
  // HubSpot has two single-send endpoints with the same body. The marketing one
  // (/marketing/v4/email/single-send) accepts the `marketing-email` scope and sends a
  // published marketing email template to one recipient: SendMarketingEmail. The one under
  // /marketing/v3/transactional needs the `transactional-email` scope and queues a
  // transactional email, answering with a send status to poll: SendTransactionalEmail.
  {
    name: 'SendMarketingEmail',
    description: 'HubSpot: send a published marketing email to one recipient (single send).',
    method: 'POST',
    path: '/marketing/v4/email/single-send',
    auth: singleSendAuth,
    body: { kind: 'mode', schema: marketingSingleSendBody },
  },
  {
    name: 'SendTransactionalEmail',
    description:
      'HubSpot: send a transactional email (receipt, password reset) from a template; queued, the answer has a status id to poll.',
    method: 'POST',
    path: '/marketing/v3/transactional/single-email/send',
    auth,
    body: { kind: 'mode', schema: transactionalSingleSendBody },
  },
  {
    name: 'QuerySmtpTokens',
    description: 'HubSpot transactional email: list all SMTP API tokens.',
    method: 'GET',
    path: '/marketing/v3/transactional/smtp-tokens',
    auth,
    params: [
      {
        name: 'campaign_name',
        in: 'query',
        apiName: 'campaignName',
        schema: { type: 'string' },
        description: '',
      },
      {
        name: 'email_campaign_id',
        in: 'query',
        apiName: 'emailCampaignId',
        schema: { type: 'string' },
        description: '',
      },
      {
        name: 'maximum_tokens_to_return',
        in: 'query',
        apiName: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: 'Page size.',
      },
      {
        name: 'result_pagination_start',
        in: 'query',
        apiName: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after.',
      },
    ],
  },
  {
    name: 'CreateSmtpApiToken',
    description: 'HubSpot transactional email: create an SMTP API token (SMTP credentials).',
    method: 'POST',
    path: '/marketing/v3/transactional/smtp-tokens',
    auth,
    body: { kind: 'fields' },
    params: [
      {
        name: 'campaign_name',
        in: 'body',
        bodyPath: 'campaignName',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: '',
      },
      {
        name: 'create_contact_for_recipients',
        in: 'body',
        bodyPath: 'createContact',
        required: true,
        schema: { type: 'boolean' },
        description: '',
      },
    ],
  },
  {
    name: 'ResetPasswordForToken',
    description: "HubSpot transactional email: reset (rotate) an SMTP API token's password.",
    method: 'POST',
    path: '/marketing/v3/transactional/smtp-tokens/{tokenId}/password-reset',
    auth,
    params: [tokenIdParam('token_identifier')],
  },
  {
    name: 'GetSmtpTokenById',
    description: 'HubSpot transactional email: get one SMTP API token.',
    method: 'GET',
    path: '/marketing/v3/transactional/smtp-tokens/{tokenId}',
    auth,
    params: [tokenIdParam('smtp_token_id')],
  },
  {
    name: 'DeleteSmtpToken',
    description: 'HubSpot transactional email: delete an SMTP API token.',
    method: 'DELETE',
    path: '/marketing/v3/transactional/smtp-tokens/{tokenId}',
    auth,
    params: [tokenIdParam('smtp_token_id')],
  },
];
