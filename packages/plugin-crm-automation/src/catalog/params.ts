import type { JsonSchema, ParamDeclaration } from '@toolhost/core';

/**
 * HubSpot's sequences endpoints require the acting HubSpot user's id, which the spec's tools
 * do not take: it comes from `toolSets.CrmAutomationApi.settings.userId`.
 */
export const hubspotUser: ParamDeclaration = {
  name: 'userId',
  in: 'query',
  fromSetting: 'userId',
  required: true,
  schema: { type: 'string' },
  description: 'HubSpot user id the sequence calls act as.',
};

/** `toolSets.CrmAutomationApi.settings`: the HubSpot user the sequence tools act as. */
export const automationSettingsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    userId: { type: 'string', minLength: 1, description: 'HubSpot user id.' },
  },
};
