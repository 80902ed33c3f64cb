import { mcpToolName } from '@toolhost/host';
import { pluginToolsOf, type SpawnedHost, spawnHost } from '@toolhost/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** Every tool of the CrmMarketingApi specification, by name. */
const SPEC_TOOLS = [
  'AddCampaignBudgetItem',
  'ArchiveCampaignsBatch',
  'ArchiveMarketingForm',
  'AssociateAssetWithCampaign',
  'AssociateListWithMarketingEvent',
  'CancelMarketingEvent',
  'CloneCrmEmail',
  'CreateAbTestEmailVariation',
  'CreateCampaignSpend',
  'CreateMarketingCampaign',
  'CreateMarketingCampaignBatch',
  'CreateMarketingEmail',
  'CreateMarketingEvent',
  'CreateMarketingForm',
  'CreateSmtpApiToken',
  'CrmMarketingEmailFilter',
  'DeleteCampaignBudgetItem',
  'DeleteMarketingCampaign',
  'DeleteMarketingEmail',
  'DeleteMarketingEvent',
  'DeleteMarketingEvents',
  'DeleteSmtpToken',
  'DisassociateCampaignAsset',
  'DisassociateListFromMarketingEvent',
  'DisassociateMarketingEventList',
  'FetchCampaignContactIds',
  'FetchEmailStatistics',
  'FetchEventDetails',
  'FetchMarketingCampaignBatches',
  'FindCrmMarketingEvents',
  'GetAllMarketingEvents',
  'GetCampaignAttributionMetrics',
  'GetCampaignBudget',
  'GetCampaignBudgetDetails',
  'GetCampaignDetails',
  'GetCampaignRevenueReport',
  'GetCampaignSpendItem',
  'GetContactParticipationsBreakdown',
  'GetEmailAbTestVariation',
  'GetEmailRevisions',
  'GetEmailStatistics',
  'GetEventParticipationCounters',
  'GetFormById',
  'GetMarketingCampaigns',
  'GetMarketingEmailDetails',
  'GetMarketingEmailRevision',
  'GetMarketingEventAssociatedLists',
  'GetMarketingEventDetails',
  'GetMarketingEventLists',
  'GetMarketingEventParticipationBreakdown',
  'GetMarketingEventParticipationCounters',
  'GetMarketingEventParticipationsBreakdown',
  'GetSmtpTokenById',
  'LinkListToEvent',
  'ListCampaignAssets',
  'ListCrmForms',
  'MarkMarketingEventCompleted',
  'ModifyEventInformation',
  'PublishCrmEmail',
  'QuerySmtpTokens',
  'RecordCrmSubscriberState',
  'RecordEventAttendance',
  'RecordEventParticipationCrm',
  'RecordMarketingEventAttendance',
  'RecordSubscriberState',
  'RegisterEventParticipation',
  'RemoveCampaignSpendItem',
  'RemoveMarketingEvent',
  'RemoveMarketingEvents',
  'ResetEmailDraftToLive',
  'ResetPasswordForToken',
  'RestoreEmailRevision',
  'RestoreEmailRevisionToDraft',
  'RetrieveEmailDraft',
  'SearchMarketingEventsByExternalId',
  'SendMarketingEmail',
  'SendTransactionalEmail',
  'UnpublishMarketingEmail',
  'UpdateCampaignBatch',
  'UpdateCampaignBudget',
  'UpdateCampaignProperties',
  'UpdateCampaignSpend',
  'UpdateCrmForm',
  'UpdateCrmMarketingForm',
  'UpdateEmailDraft',
  'UpdateMarketingEmailProperties',
  'UpdateMarketingEventDetails',
  'UpdateMarketingEventsBatch',
  'UpsertMarketingEvent',
  'UpsertMarketingEvents',
];

let host: SpawnedHost;
beforeAll(async () => {
  host = await spawnHost({ plugins: ['@toolhost/plugin-crm-marketing'] }, { env: {} });
});
afterAll(() => host?.close());

it('an MCP client sees exactly the 90 tools of the specification, each with an object schema', async () => {
  const tools = pluginToolsOf((await host.client.listTools()).tools);
  expect(SPEC_TOOLS).toHaveLength(90);
  expect(tools.map((t) => t.name).sort()).toEqual(
    SPEC_TOOLS.map((n) => mcpToolName(`CrmMarketingApi.${n}`)).sort(),
  );
  for (const t of tools) {
    expect(t.inputSchema.type).toBe('object');
    expect(t.description, t.name).toBeTruthy();
  }
});

it('lists the four names too long for the prefix clients add with the tool set as CMA', async () => {
  const names = pluginToolsOf((await host.client.listTools()).tools).map((t) => t.name);
  expect(names.filter((n) => n.startsWith('CMA_')).sort()).toEqual([
    'CMA_DisassociateListFromMarketingEvent',
    'CMA_GetMarketingEventParticipationBreakdown',
    'CMA_GetMarketingEventParticipationCounters',
    'CMA_GetMarketingEventParticipationsBreakdown',
  ]);
  for (const name of names) expect(`mcp__toolhost__${name}`.length, name).toBeLessThanOrEqual(64);
});
