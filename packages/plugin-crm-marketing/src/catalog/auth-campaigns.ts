import type { AuthRequirement } from '@toolhost/core';

const provider = 'crm-auth-provider';

/** Campaign, asset, budget, spend and report reads under /marketing/v3/campaigns. */
export const campaignsReadAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['marketing.campaigns.read'],
};

/** Campaign, asset, budget and spend writes under /marketing/v3/campaigns. */
export const campaignsWriteAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['marketing.campaigns.write'],
};

/** The campaign revenue report. */
export const campaignsRevenueAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: [
    'marketing.campaigns.revenue.read',
    'marketing.campaigns.revenue.lite.read',
    'marketing.campaigns.revenue.full.read',
  ],
};

/** Marketing forms under /marketing/v3/forms. */
export const formsAuth: AuthRequirement = { kind: 'provider', provider, scopes: ['forms'] };
