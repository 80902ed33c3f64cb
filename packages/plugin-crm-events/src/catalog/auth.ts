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

/** Scopes as HubSpot lists them per endpoint family. */
export const eventsReadAuth: AuthRequirement = providerAuth(CRM_AUTH_PROVIDER, 'oauth');
export const definitionsAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'behavioral_events.event_definitions.read_write',
);
export const sendAuth: AuthRequirement = providerAuth(CRM_AUTH_PROVIDER, 'analytics.behavioral_events.send');
