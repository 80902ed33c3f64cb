import type { CatalogSuiteOptions } from '@toolhost/testing';

/** The static token the host sends as HubSpot's bearer token in every test. */
export const TOKEN = 'hubspot-automation-token-77';

/** One host and upstream setup for every CrmAutomationApi test file (with an unconfigured variant). */
export const suiteOptions: CatalogSuiteOptions<'unconfigured'> = {
  plugin: '@toolhost/plugin-crm-automation',
  toolSet: 'CrmAutomationApi',
  toolSetConfig: { settings: { userId: 'hs-user-42' } },
  env: { CRM_AUTH_PROVIDER_TOKEN: TOKEN },
  authorization: `Bearer ${TOKEN}`,
  upstreamName: 'HubSpot',
  response: { status: 200, body: { results: [] } },
  variants: { unconfigured: { toolSetConfig: {} } },
};
