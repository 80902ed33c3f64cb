import { type AuthRequirement, secretAuth } from '@toolhost/core';

/** The source's API key, sent as the HTTP basic user name with an empty password. */
export const cdpAuth: AuthRequirement = secretAuth('CDP_API_KEY', 'basic-username');
