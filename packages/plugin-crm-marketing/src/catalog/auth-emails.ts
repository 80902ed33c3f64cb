import type { AuthRequirement } from '@toolhost/core';

const provider = 'crm-auth-provider';

/** Marketing email reads and writes under /marketing/v3/emails. */
export const emailAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['marketing.email.read', 'marketing.email.write', 'content'],
};

/** Publishing and unpublishing a marketing email. */
export const emailPublishAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['marketing-email', 'transactional-email'],
};

/** The marketing single-send endpoint (/marketing/v4/email/single-send). */
export const singleSendAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['transactional-email', 'marketing-email'],
};

/** Transactional email and SMTP API tokens under /marketing/v3/transactional. */
export const transactionalAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['transactional-email'],
};
