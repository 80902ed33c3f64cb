import type { CatalogSuiteOptions } from '@toolhost/testing';

/** The static token the host sends as HubSpot's bearer token in every test. */
export const TOKEN = 'hubspot-test-token-8f2c';

/** One host and upstream setup for every CrmEventsApi test file. */
export const suiteOptions: CatalogSuiteOptions = {
  plugin: '@toolhost/plugin-crm-events',
  toolSet: 'CrmEventsApi',
  env: { CRM_AUTH_PROVIDER_TOKEN: TOKEN },
  authorization: `Bearer ${TOKEN}`,
  upstreamName: 'HubSpot',
  response: { status: 200, body: { results: [{ id: 'r1' }] } },
};
