import type { AuthRequirement } from '@toolhost/core';

const provider = 'crm-auth-provider';

export const automationAuth: AuthRequirement = { kind: 'provider', provider, scopes: ['automation'] };
export const sequencesReadAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['automation.sequences.read'],
};
export const enrollmentsWriteAuth: AuthRequirement = {
  kind: 'provider',
  provider,
  scopes: ['automation.sequences.enrollments.write'],
};
