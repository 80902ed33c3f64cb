import type { JsonSchema, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  archiveCampaignsBatchBody,
  createCampaignBody,
  createCampaignsBatchBody,
  readCampaignsBatchBody,
  updateCampaignBody,
  updateCampaignsBatchBody,
} from '../schemas/campaigns.generated.js';
import { campaignsReadAuth, campaignsRevenueAuth, campaignsWriteAuth } from './auth-campaigns.js';

const toolSet = 'CrmMarketingApi';
const base = '/marketing/v3/campaigns';
const campaignPath = `${base}/{campaignGuid}`;

const uuid: JsonSchema = { type: 'string', format: 'uuid' };
// Empty path values are refused by the engine, so plain strings suffice.
const str: JsonSchema = { type: 'string' };
const date: JsonSchema = { type: 'string', format: 'date' };

/**
 * The campaign GUID in the path. The spec names it differently per tool and marks it as a
 * UUID on some tools only; those get the uuid format, the others any non-empty string.
 */
function campaign(name: string, isUuid: boolean): ParamDeclaration {
  return {
    name,
    in: 'path',
    as: 'campaignGuid',
    required: true,
    schema: isUuid ? uuid : str,
    description: 'Campaign GUID.',
  };
}

function pathId(name: string, as: string, description: string): ParamDeclaration {
  return { name, in: 'path', as, required: true, schema: { type: 'integer' }, description };
}

function query(name: string, as: string, schema: JsonSchema, description: string): ParamDeclaration {
  return { name, in: 'query', as, schema, description };
}

function field(
  name: string,
  as: string,
  schema: JsonSchema,
  description: string,
  required = true,
): ParamDeclaration {
  return { name, in: 'body', as, schema, description, ...(required ? { required } : {}) };
}

const properties = (name: string): ParamDeclaration =>
  query(name, 'properties', { type: 'array', items: { type: 'string' } }, 'Campaign properties to return.');

const cursor = query('pagination_cursor', 'after', { type: 'string' }, 'paging.next.after value.');

// Report period: the spec documents 2006-01-01 and today as the defaults, so they are sent.
const reportStart = (name: string): ParamDeclaration => ({
  ...query(name, 'startDate', { ...date, default: '2006-01-01' }, 'Period start.'),
  sendDefault: true,
});
const reportEnd = (name: string): ParamDeclaration => ({
  ...query(name, 'endDate', date, 'Period end; default today.'),
  dynamicDefault: 'today',
});

const assetTypes: JsonSchema = { type: 'string', enum: ['FORM', 'OBJECT_LIST', 'EXTERNAL_WEB_URL'] };
const assetParams: ParamDeclaration[] = [
  { name: 'asset_id', in: 'path', as: 'assetId', required: true, schema: str, description: 'Asset id.' },
  {
    name: 'asset_type',
    in: 'path',
    as: 'assetType',
    required: true,
    schema: assetTypes,
    description: 'Asset type.',
  },
  campaign('campaign_unique_identifier', true),
];

export const campaignTools: ToolDeclaration[] = [
  // Campaign spend and budget items.
  {
    toolSet,
    name: 'GetCampaignSpendItem',
    description: 'Get one spend item of a campaign.',
    method: 'GET',
    path: `${campaignPath}/spend/{spendId}`,
    auth: campaignsReadAuth,
    params: [campaign('campaign_guid', false), pathId('spend_item_identifier', 'spendId', 'Spend item id.')],
  },
  {
    toolSet,
    name: 'UpdateCampaignSpend',
    description: 'Replace a spend item of a campaign.',
    method: 'PUT',
    path: `${campaignPath}/spend/{spendId}`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      campaign('campaign_guid', false),
      field('spend_amount', 'amount', { type: 'number' }, 'Amount spent.'),
      pathId('spend_identifier', 'spendId', 'Spend item id.'),
      field('spend_item_name', 'name', { type: 'string' }, 'Name.'),
      field('spend_order', 'order', { type: 'integer' }, 'Position in the list.'),
      field('spend_item_description', 'description', { type: 'string' }, 'Description.', false),
    ],
  },
  {
    toolSet,
    name: 'RemoveCampaignSpendItem',
    description: 'Delete a spend item of a campaign.',
    method: 'DELETE',
    path: `${campaignPath}/spend/{spendId}`,
    auth: campaignsWriteAuth,
    params: [campaign('campaign_identifier', false), pathId('spend_item_id', 'spendId', 'Spend item id.')],
  },
  {
    toolSet,
    name: 'CreateCampaignSpend',
    description: 'Add a spend item to a campaign.',
    method: 'POST',
    path: `${campaignPath}/spend`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      campaign('campaign_id', false),
      field('spend_amount', 'amount', { type: 'number' }, 'Amount spent.'),
      field('spend_item_name', 'name', { type: 'string' }, 'Name.'),
      field('spend_item_order', 'order', { type: 'integer' }, 'Position in the list.'),
      field('spend_description', 'description', { type: 'string' }, 'Description.', false),
    ],
  },
  {
    toolSet,
    name: 'GetCampaignBudget',
    description: 'Get one budget item of a campaign.',
    method: 'GET',
    path: `${campaignPath}/budget/{budgetId}`,
    auth: campaignsReadAuth,
    params: [pathId('budget_item_id', 'budgetId', 'Budget item id.'), campaign('campaign_guid', false)],
  },
  {
    toolSet,
    name: 'UpdateCampaignBudget',
    description: 'Replace a budget item of a campaign.',
    method: 'PUT',
    path: `${campaignPath}/budget/{budgetId}`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      field('budget_amount', 'amount', { type: 'number' }, 'Budgeted amount.'),
      pathId('budget_id', 'budgetId', 'Budget item id.'),
      field('budget_item_name', 'name', { type: 'string' }, 'Name.'),
      campaign('campaign_guid', false),
      field('priority_order', 'order', { type: 'integer' }, 'Position in the list.'),
      field('budget_item_description', 'description', { type: 'string' }, 'Description.', false),
    ],
  },
  {
    toolSet,
    name: 'DeleteCampaignBudgetItem',
    description: 'Delete a budget item of a campaign.',
    method: 'DELETE',
    path: `${campaignPath}/budget/{budgetId}`,
    auth: campaignsWriteAuth,
    params: [pathId('budget_item_id', 'budgetId', 'Budget item id.'), campaign('campaign_guid', false)],
  },
  {
    toolSet,
    name: 'AddCampaignBudgetItem',
    description: 'Add a budget item to a campaign.',
    method: 'POST',
    path: `${campaignPath}/budget`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      field('budget_amount', 'amount', { type: 'number' }, 'Budgeted amount.'),
      field('budget_item_name', 'name', { type: 'string' }, 'Name.'),
      field('budget_item_order', 'order', { type: 'integer' }, 'Position in the list.'),
      campaign('campaign_id', false),
      field('budget_item_description', 'description', { type: 'string' }, 'Description.', false),
    ],
  },
  {
    toolSet,
    name: 'GetCampaignBudgetDetails',
    description: "Get a campaign's budget and spend totals with their items.",
    method: 'GET',
    path: `${campaignPath}/budget/totals`,
    auth: campaignsReadAuth,
    params: [campaign('campaign_unique_identifier', true)],
  },

  // Campaigns and assets.
  {
    toolSet,
    name: 'GetMarketingCampaigns',
    description: 'List campaigns, optionally filtered by name; paged by paging.next.after.',
    method: 'GET',
    path: base,
    auth: campaignsReadAuth,
    // limit and sort defaults are HubSpot's own (50, hs_name): left to the API, not sent.
    params: [
      query('campaign_name_filter', 'name', { type: 'string' }, 'Substring of the campaign name.'),
      query(
        'max_results_limit',
        'limit',
        { type: 'integer', minimum: 1, maximum: 100, default: 50 },
        'Page size.',
      ),
      cursor,
      properties('requested_properties'),
      query(
        'sort_by',
        'sort',
        {
          type: 'string',
          enum: ['hs_name', '-hs_name', 'createdAt', '-createdAt', 'updatedAt', '-updatedAt'],
          default: 'hs_name',
        },
        'Sort field; leading - for descending.',
      ),
    ],
  },
  {
    toolSet,
    name: 'CreateMarketingCampaign',
    description: 'Create a campaign from its properties.',
    method: 'POST',
    path: base,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: createCampaignBody },
  },
  {
    toolSet,
    name: 'CreateMarketingCampaignBatch',
    description: 'Create several campaigns (body: {inputs:[{properties}]}).',
    method: 'POST',
    path: `${base}/batch/create`,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: createCampaignsBatchBody },
  },
  {
    toolSet,
    name: 'UpdateCampaignBatch',
    description: 'Update the properties of several campaigns (body: {inputs:[{id, properties}]}).',
    method: 'POST',
    path: `${base}/batch/update`,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: updateCampaignsBatchBody },
  },
  {
    toolSet,
    name: 'ArchiveCampaignsBatch',
    description: 'Delete several campaigns (body: {inputs:[{id}]}).',
    method: 'POST',
    path: `${base}/batch/archive`,
    auth: campaignsWriteAuth,
    hints: { destructive: true, idempotent: true },
    body: { kind: 'mode', schema: archiveCampaignsBatchBody },
  },
  {
    toolSet,
    name: 'FetchMarketingCampaignBatches',
    description: 'Read several campaigns (body: {inputs:[{id}]}); asset metrics need both dates.',
    method: 'POST',
    path: `${base}/batch/read`,
    auth: campaignsReadAuth,
    hints: { readOnly: true },
    body: { kind: 'mode', schema: readCampaignsBatchBody },
    params: [
      { ...query('fetch_start_date', 'startDate', date, 'Asset metrics period start.'), mode: 'xo' },
      { ...query('end_date_for_asset_metrics', 'endDate', date, 'Asset metrics period end.'), mode: 'xo' },
      { ...properties('requested_properties'), mode: 'xo' },
    ],
  },
  {
    toolSet,
    name: 'GetCampaignDetails',
    description: 'Get one campaign with its assets; asset metrics need both dates.',
    method: 'GET',
    path: campaignPath,
    auth: campaignsReadAuth,
    params: [
      campaign('campaign_guid', true),
      query('end_date_for_asset_metrics', 'endDate', date, 'Asset metrics period end.'),
      query('metrics_start_date', 'startDate', date, 'Asset metrics period start.'),
      properties('properties_list'),
    ],
  },
  {
    toolSet,
    name: 'DeleteMarketingCampaign',
    description: 'Delete a campaign.',
    method: 'DELETE',
    path: campaignPath,
    auth: campaignsWriteAuth,
    params: [campaign('campaign_guid', true)],
  },
  {
    toolSet,
    name: 'UpdateCampaignProperties',
    description: 'Update properties of a campaign.',
    method: 'PATCH',
    path: campaignPath,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: updateCampaignBody },
    params: [{ ...campaign('campaign_uuid', true), required: false, mode: 'x' }],
  },
  {
    toolSet,
    name: 'AssociateAssetWithCampaign',
    description: 'Associate an asset with a campaign.',
    method: 'PUT',
    path: `${campaignPath}/assets/{assetType}/{assetId}`,
    auth: campaignsWriteAuth,
    params: assetParams,
  },
  {
    toolSet,
    name: 'DisassociateCampaignAsset',
    description: 'Remove an asset from a campaign.',
    method: 'DELETE',
    path: `${campaignPath}/assets/{assetType}/{assetId}`,
    auth: campaignsWriteAuth,
    params: assetParams,
  },
  {
    toolSet,
    name: 'ListCampaignAssets',
    description: 'List the assets of one type in a campaign; metrics need a start date.',
    method: 'GET',
    path: `${campaignPath}/assets/{assetType}`,
    auth: campaignsReadAuth,
    // The default page size 10 is HubSpot's own: left to the API, not sent.
    params: [
      {
        name: 'asset_type',
        in: 'path',
        as: 'assetType',
        required: true,
        schema: str,
        description: 'Asset type, e.g. MARKETING_EMAIL.',
      },
      campaign('campaign_identifier', true),
      query('end_date_for_asset_metrics', 'endDate', date, 'Metrics period end.'),
      query(
        'maximum_results_limit',
        'limit',
        { type: 'string', pattern: '^[0-9]+$', default: '10' },
        'Page size, as a decimal string.',
      ),
      query('metrics_start_date', 'startDate', date, 'Metrics period start.'),
      cursor,
    ],
  },
  {
    toolSet,
    name: 'GetCampaignAttributionMetrics',
    description: 'Get attribution metrics of a campaign for a period.',
    method: 'GET',
    path: `${campaignPath}/reports/metrics`,
    auth: campaignsReadAuth,
    params: [
      campaign('campaign_unique_identifier', true),
      reportEnd('report_end_date'),
      reportStart('start_date_for_report'),
    ],
  },
  {
    toolSet,
    name: 'GetCampaignRevenueReport',
    description: 'Get attributed revenue of a campaign for a period.',
    method: 'GET',
    path: `${campaignPath}/reports/revenue`,
    auth: campaignsRevenueAuth,
    params: [
      campaign('campaign_unique_identifier', true),
      // LINEAR is also HubSpot's own default: left to the API, not sent.
      query(
        'attribution_model',
        'attributionModel',
        {
          type: 'string',
          enum: [
            'LINEAR',
            'FIRST_INTERACTION',
            'LAST_INTERACTION',
            'FULL_PATH',
            'U_SHAPED',
            'W_SHAPED',
            'TIME_DECAY',
            'J_SHAPED',
            'INVERSE_J_SHAPED',
          ],
          default: 'LINEAR',
        },
        'Attribution model.',
      ),
      reportEnd('report_end_date'),
      reportStart('report_start_date'),
    ],
  },
  {
    toolSet,
    name: 'FetchCampaignContactIds',
    description: 'List ids of contacts attributed to a campaign for a period.',
    method: 'GET',
    path: `${campaignPath}/reports/contacts/{contactType}`,
    auth: campaignsReadAuth,
    params: [
      campaign('campaign_identifier', true),
      {
        name: 'contact_type_filter',
        in: 'path',
        as: 'contactType',
        required: true,
        schema: { type: 'string', enum: ['contactFirstTouch', 'contactLastTouch', 'influencedContacts'] },
        description: 'Attribution kind.',
      },
      // The default 100 is HubSpot's own: left to the API, not sent.
      query('contact_fetch_limit', 'limit', { type: 'integer', minimum: 1, default: 100 }, 'Page size.'),
      cursor,
      reportEnd('report_end_date'),
      reportStart('start_date'),
    ],
  },
];
