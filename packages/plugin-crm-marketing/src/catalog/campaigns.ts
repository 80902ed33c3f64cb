import {
  bodyParam,
  type JsonSchema,
  type ParamDeclaration,
  pathParam,
  queryParam,
  type ToolDeclaration,
} from '@toolhost/core';
import {
  archiveCampaignsBatchBody,
  createCampaignBody,
  createCampaignsBatchBody,
  readCampaignsBatchBody,
  updateCampaignBody,
  updateCampaignsBatchBody,
} from '../schemas/campaigns.generated.js';
import { campaignsReadAuth, campaignsRevenueAuth, campaignsWriteAuth } from './auth.js';

const base = '/marketing/v3/campaigns';
const campaignPath = `${base}/{campaignGuid}`;

const uuid: JsonSchema = { type: 'string', format: 'uuid' };
// Empty path values are refused by the engine, so plain strings suffice.
const str: JsonSchema = { type: 'string' };
const date: JsonSchema = { type: 'string', format: 'date' };

/**
 * The campaign GUID in the path. The spec names it differently per tool and marks it as a
 * UUID on some tools only; those get the uuid format, the others any non-empty string.
 * Only a name that says neither GUID nor (by its format) UUID is described.
 */
function campaign(name: string, isUuid: boolean): ParamDeclaration {
  return {
    name,
    in: 'path',
    apiName: 'campaignGuid',
    required: true,
    schema: isUuid ? uuid : str,
    description: isUuid || name.includes('guid') ? '' : 'Campaign GUID.',
  };
}

function pathId(name: string, apiName: string): ParamDeclaration {
  return pathParam(name, apiName, '', { schema: { type: 'integer' } });
}

function query(name: string, apiName: string, schema: JsonSchema, description = ''): ParamDeclaration {
  return queryParam(name, description, schema, apiName !== name ? { apiName } : {});
}

function field(
  name: string,
  bodyPath: string,
  schema: JsonSchema,
  description = '',
  required = true,
): ParamDeclaration {
  return bodyParam(name, description, schema, {
    ...(bodyPath !== name ? { bodyPath } : {}),
    ...(required ? { required } : {}),
  });
}

// The spec: an empty list gives an empty properties map, so [] is sent as `properties=`
// rather than left out (which would return the default properties).
const properties = (name: string): ParamDeclaration => ({
  ...query(name, 'properties', { type: 'array', items: { type: 'string' } }),
  sendEmptyArray: true,
});

const cursor = query('pagination_cursor', 'after', { type: 'string' }, 'paging.next.after.');

// Report period: the spec documents 2006-01-01 and today as the defaults, so they are sent.
const reportStart = (name: string): ParamDeclaration => ({
  ...query(name, 'startDate', { ...date, default: '2006-01-01' }),
  sendDefault: true,
});
const reportEnd = (name: string): ParamDeclaration => ({
  ...query(name, 'endDate', date, 'Default today.'),
  dynamicDefault: 'today',
});

const assetTypes: JsonSchema = { type: 'string', enum: ['FORM', 'OBJECT_LIST', 'EXTERNAL_WEB_URL'] };
const assetParams: ParamDeclaration[] = [
  { name: 'asset_id', in: 'path', apiName: 'assetId', required: true, schema: str, description: '' },
  {
    name: 'asset_type',
    in: 'path',
    apiName: 'assetType',
    required: true,
    schema: assetTypes,
    description: '',
  },
  campaign('campaign_unique_identifier', true),
];

export const campaignTools: ToolDeclaration[] = [
  // Campaign spend and budget items.
  {
    name: 'GetCampaignSpendItem',
    description: 'HubSpot campaigns: get one spend item (money spent) of a campaign.',
    method: 'GET',
    path: `${campaignPath}/spend/{spendId}`,
    auth: campaignsReadAuth,
    params: [campaign('campaign_guid', false), pathId('spend_item_identifier', 'spendId')],
  },
  {
    name: 'UpdateCampaignSpend',
    description: 'HubSpot campaigns: replace a whole spend item (amount, name, order, description).',
    method: 'PUT',
    path: `${campaignPath}/spend/{spendId}`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      campaign('campaign_guid', false),
      field('spend_amount', 'amount', { type: 'number' }),
      pathId('spend_identifier', 'spendId'),
      field('spend_item_name', 'name', { type: 'string' }),
      field('spend_order', 'order', { type: 'integer' }),
      field('spend_item_description', 'description', { type: 'string' }, '', false),
    ],
  },
  {
    name: 'RemoveCampaignSpendItem',
    description: 'HubSpot campaigns: delete one spend item of a campaign.',
    method: 'DELETE',
    path: `${campaignPath}/spend/{spendId}`,
    auth: campaignsWriteAuth,
    params: [campaign('campaign_identifier', false), pathId('spend_item_id', 'spendId')],
  },
  {
    name: 'CreateCampaignSpend',
    description: 'HubSpot campaigns: add a spend item (amount spent) to a campaign.',
    method: 'POST',
    path: `${campaignPath}/spend`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      campaign('campaign_id', false),
      field('spend_amount', 'amount', { type: 'number' }),
      field('spend_item_name', 'name', { type: 'string' }),
      field('spend_item_order', 'order', { type: 'integer' }),
      field('spend_description', 'description', { type: 'string' }, '', false),
    ],
  },
  {
    name: 'GetCampaignBudget',
    description: 'HubSpot campaigns: get one budget item of a campaign.',
    method: 'GET',
    path: `${campaignPath}/budget/{budgetId}`,
    auth: campaignsReadAuth,
    params: [pathId('budget_item_id', 'budgetId'), campaign('campaign_guid', false)],
  },
  {
    name: 'UpdateCampaignBudget',
    description: 'HubSpot campaigns: replace a whole budget item (amount, name, order, description).',
    method: 'PUT',
    path: `${campaignPath}/budget/{budgetId}`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      field('budget_amount', 'amount', { type: 'number' }),
      pathId('budget_id', 'budgetId'),
      field('budget_item_name', 'name', { type: 'string' }),
      campaign('campaign_guid', false),
      field('priority_order', 'order', { type: 'integer' }, 'Position in the list.'),
      field('budget_item_description', 'description', { type: 'string' }, '', false),
    ],
  },
  {
    name: 'DeleteCampaignBudgetItem',
    description: 'HubSpot campaigns: delete one budget item of a campaign.',
    method: 'DELETE',
    path: `${campaignPath}/budget/{budgetId}`,
    auth: campaignsWriteAuth,
    params: [pathId('budget_item_id', 'budgetId'), campaign('campaign_guid', false)],
  },
  {
    name: 'AddCampaignBudgetItem',
    description: 'HubSpot campaigns: add a budget item (planned amount) to a campaign.',
    method: 'POST',
    path: `${campaignPath}/budget`,
    auth: campaignsWriteAuth,
    body: { kind: 'fields' },
    params: [
      field('budget_amount', 'amount', { type: 'number' }),
      field('budget_item_name', 'name', { type: 'string' }),
      field('budget_item_order', 'order', { type: 'integer' }),
      campaign('campaign_id', false),
      field('budget_item_description', 'description', { type: 'string' }, '', false),
    ],
  },
  {
    name: 'GetCampaignBudgetDetails',
    description: "HubSpot campaigns: a campaign's budget and spend totals, with every budget and spend item.",
    method: 'GET',
    path: `${campaignPath}/budget/totals`,
    auth: campaignsReadAuth,
    params: [campaign('campaign_unique_identifier', true)],
  },

  // Campaigns and assets.
  {
    name: 'GetMarketingCampaigns',
    description: 'HubSpot: list all marketing campaigns, filtered by name, sorted and paged.',
    method: 'GET',
    path: base,
    auth: campaignsReadAuth,
    // limit and sort defaults are HubSpot's own (50, hs_name): left to the API, not sent.
    params: [
      query('campaign_name_filter', 'name', { type: 'string' }, 'Name substring.'),
      query(
        'max_results_limit',
        'limit',
        { type: 'integer', minimum: 1, maximum: 100, default: 50 },
        'Page size.',
      ),
      cursor,
      properties('requested_properties'),
      query('sort_by', 'sort', {
        type: 'string',
        enum: ['hs_name', '-hs_name', 'createdAt', '-createdAt', 'updatedAt', '-updatedAt'],
        default: 'hs_name',
      }),
    ],
  },
  {
    name: 'CreateMarketingCampaign',
    description: 'HubSpot: create a marketing campaign (body {properties}).',
    method: 'POST',
    path: base,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: createCampaignBody },
  },
  {
    name: 'CreateMarketingCampaignBatch',
    description: 'HubSpot: create several marketing campaigns in one batch (body {inputs:[{properties}]}).',
    method: 'POST',
    path: `${base}/batch/create`,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: createCampaignsBatchBody },
  },
  {
    name: 'UpdateCampaignBatch',
    description:
      'HubSpot: update the properties of several campaigns in one batch (body {inputs:[{id, properties}]}).',
    method: 'POST',
    path: `${base}/batch/update`,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: updateCampaignsBatchBody },
  },
  {
    name: 'ArchiveCampaignsBatch',
    description: 'HubSpot: delete several campaigns in one batch (body {inputs:[{id}]}).',
    method: 'POST',
    path: `${base}/batch/archive`,
    auth: campaignsWriteAuth,
    hints: { destructive: true, idempotent: true },
    body: { kind: 'mode', schema: archiveCampaignsBatchBody },
  },
  {
    name: 'FetchMarketingCampaignBatches',
    description:
      'HubSpot: read several campaigns by id in one batch (body {inputs:[{id}]}); asset metrics need both dates.',
    method: 'POST',
    path: `${base}/batch/read`,
    auth: campaignsReadAuth,
    hints: { readOnly: true },
    body: { kind: 'mode', schema: readCampaignsBatchBody },
    params: [
      { ...query('fetch_start_date', 'startDate', date, 'Asset metrics start.'), executeOnly: 'optional' },
      { ...query('end_date_for_asset_metrics', 'endDate', date), executeOnly: 'optional' },
      { ...properties('requested_properties'), executeOnly: 'optional' },
    ],
  },
  {
    name: 'GetCampaignDetails',
    description: 'HubSpot: get one campaign with its properties and assets; asset metrics need both dates.',
    method: 'GET',
    path: campaignPath,
    auth: campaignsReadAuth,
    params: [
      campaign('campaign_guid', true),
      query('end_date_for_asset_metrics', 'endDate', date),
      query('metrics_start_date', 'startDate', date),
      properties('properties_list'),
    ],
  },
  {
    name: 'DeleteMarketingCampaign',
    description: 'HubSpot: delete one marketing campaign.',
    method: 'DELETE',
    path: campaignPath,
    auth: campaignsWriteAuth,
    params: [campaign('campaign_guid', true)],
  },
  {
    name: 'UpdateCampaignProperties',
    description: "HubSpot: update a campaign's properties (name, dates, owner and others).",
    method: 'PATCH',
    path: campaignPath,
    auth: campaignsWriteAuth,
    body: { kind: 'mode', schema: updateCampaignBody },
    params: [{ ...campaign('campaign_uuid', true), required: false, executeOnly: 'required' }],
  },
  {
    name: 'AssociateAssetWithCampaign',
    description: 'HubSpot: add an asset (marketing email, landing page, blog post, form...) to a campaign.',
    method: 'PUT',
    path: `${campaignPath}/assets/{assetType}/{assetId}`,
    auth: campaignsWriteAuth,
    params: assetParams,
  },
  {
    name: 'DisassociateCampaignAsset',
    description: 'HubSpot: remove an asset (marketing email, landing page...) from a campaign.',
    method: 'DELETE',
    path: `${campaignPath}/assets/{assetType}/{assetId}`,
    auth: campaignsWriteAuth,
    params: assetParams,
  },
  {
    name: 'ListCampaignAssets',
    description:
      "HubSpot: list a campaign's assets of one type (emails, landing pages...); metrics need a start date.",
    method: 'GET',
    path: `${campaignPath}/assets/{assetType}`,
    auth: campaignsReadAuth,
    // The default page size 10 is HubSpot's own: left to the API, not sent.
    params: [
      {
        name: 'asset_type',
        in: 'path',
        apiName: 'assetType',
        required: true,
        schema: str,
        description: 'e.g. MARKETING_EMAIL.',
      },
      campaign('campaign_identifier', true),
      query('end_date_for_asset_metrics', 'endDate', date),
      query(
        'maximum_results_limit',
        'limit',
        { type: 'string', pattern: '^[0-9]+$', default: '10' },
        'Page size.',
      ),
      query('metrics_start_date', 'startDate', date),
      cursor,
    ],
  },
  {
    name: 'GetCampaignAttributionMetrics',
    description: 'HubSpot campaign report: sessions, new contacts and influenced contacts over a period.',
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
    name: 'GetCampaignRevenueReport',
    description:
      'HubSpot campaign report: attributed revenue, deals and ROI over a period, by attribution model.',
    method: 'GET',
    path: `${campaignPath}/reports/revenue`,
    auth: campaignsRevenueAuth,
    params: [
      campaign('campaign_unique_identifier', true),
      // LINEAR is also HubSpot's own default: left to the API, not sent.
      query('attribution_model', 'attributionModel', {
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
      }),
      reportEnd('report_end_date'),
      reportStart('report_start_date'),
    ],
  },
  {
    name: 'FetchCampaignContactIds',
    description:
      'HubSpot campaign report: ids of the contacts a campaign attracted or influenced over a period.',
    method: 'GET',
    path: `${campaignPath}/reports/contacts/{contactType}`,
    auth: campaignsReadAuth,
    params: [
      campaign('campaign_identifier', true),
      {
        name: 'contact_type_filter',
        in: 'path',
        apiName: 'contactType',
        required: true,
        schema: { type: 'string', enum: ['contactFirstTouch', 'contactLastTouch', 'influencedContacts'] },
        description: '',
      },
      // The default 100 is HubSpot's own: left to the API, not sent.
      query('contact_fetch_limit', 'limit', { type: 'integer', minimum: 1, default: 100 }, 'Page size.'),
      cursor,
      reportEnd('report_end_date'),
      reportStart('start_date'),
    ],
  },
];
