import { type AuthRequirement, providerAuth, type TrafficPolicy } from '@toolhost/core';

/** The auth provider every HubSpot tool authorizes through. */
export const CRM_AUTH_PROVIDER = 'crm-auth-provider';

/** HubSpot's OAuth endpoints, the defaults for `crm-auth-provider` (overridable in host config). */
export const HUBSPOT_OAUTH = {
  authorizeUrl: 'https://app.hubspot.com/oauth/authorize',
  tokenUrl: 'https://api.hubapi.com/oauth/v1/token',
  clientAuth: 'post',
  // RFC 7009 revocation of the refresh token, with the client credentials in the form.
  revokeUrl: 'https://api.hubapi.com/oauth/2026-03/token/revoke',
  // RFC 7662 introspection (client credentials in the form) names the user and the portal.
  account: {
    via: 'introspection',
    url: 'https://api.hubapi.com/oauth/2026-03/token/introspect',
    fields: ['user', 'hub_domain'],
  },
} as const;

/**
 * HubSpot's burst limit counts requests per app and HubSpot account over 10 seconds: 110 for
 * an OAuth (public) app, 100 for a private app on a Free or Starter account, more on higher
 * tiers. Nine a second, evenly spaced, stays under the lowest of them in any 10-second
 * window, and is shared by every HubSpot tool set sending with the same connection (the
 * host's pacing per connection). Operators on a higher tier can raise it
 * (`toolSets.<set>.pacing`), alike for the three HubSpot tool sets.
 */
export const HUBSPOT_TRAFFIC: TrafficPolicy = { pacing: { per: 'connection', requestsPerSecond: 9 } };

/** Campaign, asset, budget, spend and report reads under /marketing/v3/campaigns. */
export const campaignsReadAuth: AuthRequirement = providerAuth(CRM_AUTH_PROVIDER, 'marketing.campaigns.read');

/** Campaign, asset, budget and spend writes under /marketing/v3/campaigns. */
export const campaignsWriteAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'marketing.campaigns.write',
);

/** The campaign revenue report. */
export const campaignsRevenueAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'marketing.campaigns.revenue.read',
  'marketing.campaigns.revenue.lite.read',
  'marketing.campaigns.revenue.full.read',
);

/** Marketing forms under /marketing/v3/forms. */
export const formsAuth: AuthRequirement = providerAuth(CRM_AUTH_PROVIDER, 'forms');

/** Marketing email reads and writes under /marketing/v3/emails. */
export const emailAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'marketing.email.read',
  'marketing.email.write',
  'content',
);

/** Publishing and unpublishing a marketing email. */
export const emailPublishAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'marketing-email',
  'transactional-email',
);

/** The marketing single-send endpoint (/marketing/v4/email/single-send). */
export const singleSendAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'transactional-email',
  'marketing-email',
);

/** Transactional email and SMTP API tokens under /marketing/v3/transactional. */
export const transactionalAuth: AuthRequirement = providerAuth(CRM_AUTH_PROVIDER, 'transactional-email');

/** Reading marketing events and participations under /marketing/v3/marketing-events. */
export const eventsReadAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'crm.objects.marketing_events.read',
);

/** Writing marketing events, their list associations and participations (HubSpot also lists this scope for reading list associations). */
export const eventsWriteAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'crm.objects.marketing_events.write',
);
