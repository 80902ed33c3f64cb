import type { AuthRequirement } from '@toolhost/core';

const provider = 'crm-auth-provider';

/** Scopes as HubSpot lists them per endpoint family. */
export const eventsReadAuth: AuthRequirement = { kind: 'provider', provider, scopes: ['oauth'] };
export const definitionsAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['behavioral_events.event_definitions.read_write'],
};
export const sendAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['analytics.behavioral_events.send'],
};
