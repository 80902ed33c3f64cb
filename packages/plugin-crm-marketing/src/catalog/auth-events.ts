import type { AuthRequirement } from '@toolhost/core';

const provider = 'crm-auth-provider';

/** Reading marketing events and participations under /marketing/v3/marketing-events. */
export const eventsReadAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['crm.objects.marketing_events.read'],
};

/** Writing marketing events, their list associations and participations (HubSpot also lists this scope for reading list associations). */
export const eventsWriteAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['crm.objects.marketing_events.write'],
};
