import { type AuthRequirement, secretAuth } from '@toolhost/core';

/** The Notes API takes an API key as a bearer token; the host reads it from NOTES_API_KEY. */
export const notesAuth: AuthRequirement = secretAuth('NOTES_API_KEY', 'bearer');
