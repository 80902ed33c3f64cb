import type { ExecuteOnly, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import { createEmailBody, updateEmailBody, updateEmailDraftBody } from '../schemas/emails.generated.js';
import { emailAuth as auth, emailPublishAuth } from './auth.js';

/** The email id in the path (`{emailId}`), under whatever name the spec gives it. */
function emailIdParam(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return {
    name,
    in: 'path',
    apiName: 'emailId',
    ...(executeOnly ? { executeOnly } : { required: true }),
    schema: { type: 'string', minLength: 1 },
    description: '',
  };
}

export const emailTools: ToolDeclaration[] = [
  {
    name: 'GetEmailStatistics',
    description:
      'HubSpot marketing email statistics summed over a time span: sent, delivered, opens, clicks, bounces, unsubscribes and rates.',
    method: 'GET',
    path: '/marketing/v3/emails/statistics/list',
    auth,
  },
  {
    name: 'FetchEmailStatistics',
    description:
      'HubSpot marketing email statistics per time interval (a histogram): opens, clicks, deliveries over time.',
    method: 'GET',
    path: '/marketing/v3/emails/statistics/histogram',
    auth,
  },
  {
    name: 'CrmMarketingEmailFilter',
    description:
      'HubSpot: list all marketing emails (newsletters), filtered by dates, type or archived; paged.',
    method: 'GET',
    path: '/marketing/v3/emails',
    auth,
  },
  {
    name: 'CreateMarketingEmail',
    description: 'HubSpot: create a marketing email (newsletter).',
    method: 'POST',
    path: '/marketing/v3/emails',
    auth,
    body: { kind: 'mode', schema: createEmailBody },
  },
  {
    name: 'GetMarketingEmailDetails',
    description: 'HubSpot: get one marketing email (subject, content, settings).',
    method: 'GET',
    path: '/marketing/v3/emails/{emailId}',
    auth,
    params: [emailIdParam('email_id')],
  },
  {
    name: 'UpdateMarketingEmailProperties',
    description: "HubSpot: update a marketing email's properties (subject, name, content).",
    method: 'PATCH',
    path: '/marketing/v3/emails/{emailId}',
    auth,
    body: { kind: 'mode', schema: updateEmailBody },
    params: [emailIdParam('email_identifier', 'required')],
  },
  {
    name: 'DeleteMarketingEmail',
    description: 'HubSpot: delete a marketing email.',
    method: 'DELETE',
    path: '/marketing/v3/emails/{emailId}',
    auth,
    params: [emailIdParam('email_id')],
  },
  {
    name: 'PublishCrmEmail',
    description: 'HubSpot: publish a marketing email: send it to its lists now, or schedule it.',
    method: 'POST',
    path: '/marketing/v3/emails/{emailId}/publish',
    auth: emailPublishAuth,
    params: [emailIdParam('crm_email_id')],
  },
  {
    name: 'UnpublishMarketingEmail',
    description: 'HubSpot: unpublish a marketing email (cancel its scheduled send).',
    method: 'POST',
    path: '/marketing/v3/emails/{emailId}/unpublish',
    auth: emailPublishAuth,
    params: [emailIdParam('email_identifier')],
  },
  {
    name: 'CloneCrmEmail',
    description: 'HubSpot: clone (copy) a marketing email under a new name.',
    method: 'POST',
    path: '/marketing/v3/emails/clone',
    auth,
    body: { kind: 'fields' },
    params: [
      {
        name: 'original_email_id',
        in: 'body',
        bodyPath: 'id',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: '',
      },
      {
        name: 'cloned_email_name',
        in: 'body',
        bodyPath: 'cloneName',
        schema: { type: 'string' },
        description: '',
      },
      {
        name: 'email_language',
        in: 'body',
        bodyPath: 'language',
        schema: { type: 'string', minLength: 1 },
        description: 'Language code, e.g. en-us.',
      },
    ],
  },
  {
    name: 'CreateAbTestEmailVariation',
    description: 'HubSpot: create the A/B test variation of a marketing email.',
    method: 'POST',
    path: '/marketing/v3/emails/ab-test/create-variation',
    auth,
    body: { kind: 'fields' },
    params: [
      {
        // The API calls the email's id `contentId` in this body.
        name: 'email_content_id',
        in: 'body',
        bodyPath: 'contentId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: 'Email id.',
      },
      {
        name: 'variation_name',
        in: 'body',
        bodyPath: 'variationName',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: '',
      },
    ],
  },
  {
    name: 'GetEmailAbTestVariation',
    description: 'HubSpot: get the A/B test variation of a marketing email.',
    method: 'GET',
    path: '/marketing/v3/emails/{emailId}/ab-test/get-variation',
    auth,
    params: [emailIdParam('email_identifier')],
  },
  {
    name: 'RetrieveEmailDraft',
    description: 'HubSpot: get the draft (unpublished changes) of a marketing email.',
    method: 'GET',
    path: '/marketing/v3/emails/{emailId}/draft',
    auth,
    params: [emailIdParam('email_id')],
  },
  {
    name: 'UpdateEmailDraft',
    description: 'HubSpot: create or update the draft of a marketing email, without publishing it.',
    method: 'PATCH',
    path: '/marketing/v3/emails/{emailId}/draft',
    auth,
    body: { kind: 'mode', schema: updateEmailDraftBody },
    params: [emailIdParam('email_id', 'required')],
  },
  {
    name: 'ResetEmailDraftToLive',
    description: "HubSpot: discard (undo) a marketing email's draft changes, back to the live version.",
    method: 'POST',
    path: '/marketing/v3/emails/{emailId}/draft/reset',
    auth,
    params: [emailIdParam('email_id')],
  },
  {
    name: 'GetEmailRevisions',
    description: 'HubSpot: list the revisions (version history) of a marketing email.',
    method: 'GET',
    path: '/marketing/v3/emails/{emailId}/revisions',
    auth,
    params: [emailIdParam('email_id')],
  },
  {
    name: 'GetMarketingEmailRevision',
    description: 'HubSpot: get one revision of a marketing email.',
    method: 'GET',
    path: '/marketing/v3/emails/{emailId}/revisions/{revisionId}',
    auth,
    params: [
      emailIdParam('email_id'),
      {
        name: 'email_revision_id',
        in: 'path',
        apiName: 'revisionId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: '',
      },
    ],
  },
  {
    name: 'RestoreEmailRevision',
    description: 'HubSpot: restore a revision of a marketing email as its live version.',
    method: 'POST',
    path: '/marketing/v3/emails/{emailId}/revisions/{revisionId}/restore',
    auth,
    params: [
      emailIdParam('email_id'),
      {
        name: 'revision_id',
        in: 'path',
        apiName: 'revisionId',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: '',
      },
    ],
  },
  {
    name: 'RestoreEmailRevisionToDraft',
    description: 'HubSpot: copy a revision of a marketing email into its draft.',
    method: 'POST',
    path: '/marketing/v3/emails/{emailId}/revisions/{revisionId}/restore-to-draft',
    auth,
    params: [
      emailIdParam('email_identifier'),
      {
        // The spec types the id as a string; this endpoint's path segment is an int64, so
        // only digit strings are accepted (the value is sent unchanged).
        name: 'revision_id',
        in: 'path',
        apiName: 'revisionId',
        required: true,
        schema: { type: 'string', pattern: '^[0-9]+$' },
        description: '',
      },
    ],
  },
];
