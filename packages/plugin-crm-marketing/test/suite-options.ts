import type { CatalogSuiteOptions } from '@toolhost/testing';

/** The static token the host sends as HubSpot's bearer token in every test. */
export const TOKEN = 'hubspot-marketing-token-31';

/** One host and upstream setup for every CrmMarketingApi test file. */
export const suiteOptions: CatalogSuiteOptions = {
  plugin: '@toolhost/plugin-crm-marketing',
  toolSet: 'CrmMarketingApi',
  env: { CRM_AUTH_PROVIDER_TOKEN: TOKEN },
  authorization: `Bearer ${TOKEN}`,
  upstreamName: 'HubSpot',
  response: { status: 200, body: { results: [] } },
};
