import { type AuthRequirement, providerAuth } from '@toolhost/core';

/** The auth provider every HubSpot tool authorizes through. */
export const CRM_AUTH_PROVIDER = 'crm-auth-provider';

/** HubSpot's OAuth endpoints, the defaults for `crm-auth-provider` (overridable in host config). */
export const HUBSPOT_OAUTH = {
  authorizeUrl: 'https://app.hubspot.com/oauth/authorize',
  tokenUrl: 'https://api.hubapi.com/oauth/v1/token',
  clientAuth: 'post',
  // RFC 7009 revocation of the refresh token, with the client credentials in the form.
  revokeUrl: 'https://api.hubapi.com/oauth/2026-03/token/revoke',
} as const;

/** Scopes as HubSpot lists them per endpoint family. */
export const eventsReadAuth: AuthRequirement = providerAuth(CRM_AUTH_PROVIDER, 'oauth');
export const definitionsAuth: AuthRequirement = providerAuth(
  CRM_AUTH_PROVIDER,
  'behavioral_events.event_definitions.read_write',
);
export const sendAuth: AuthRequirement = providerAuth(CRM_AUTH_PROVIDER, 'analytics.behavioral_events.send');
