import type { CatalogSuiteOptions } from '@toolhost/testing';

/** The static token the host sends as Airtable's bearer token in every test. */
export const TOKEN = 'grid-test-token-31';

/**
 * One host and upstream setup for every GridApi test file. Files whose tools live on
 * Airtable's other servers (SCIM, content) add `toolSetConfig` pointing those at the upstream.
 */
export const suiteOptions: CatalogSuiteOptions = {
  plugin: '@toolhost/plugin-grid',
  toolSet: 'GridApi',
  env: { GRID_AUTH_PROVIDER_TOKEN: TOKEN },
  authorization: `Bearer ${TOKEN}`,
  upstreamName: 'Airtable',
};
