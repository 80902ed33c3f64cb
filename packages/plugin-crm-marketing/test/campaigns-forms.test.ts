import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/campaigns.generated.js';
import { suiteOptions } from './suite-options.js';

const G = 'c0ffee00-1234-4abc-8def-0123456789ab';
const C = `/marketing/v3/campaigns/${G}`;

const props = { properties: { hs_name: 'Spring launch', hs_goal: 'Leads' } };
const ids = { inputs: [{ id: G }] };
const form = {
  archived: false,
  configuration: {
    allowLinkToResetKnownValues: false,
    archivable: true,
    cloneable: true,
    createNewContactForNewEmail: false,
    editable: true,
    language: 'en',
    lifecycleStages: [],
    notifyContactOwner: false,
    notifyRecipients: [],
    postSubmitAction: { type: 'thank_you', value: 'Thanks!' },
    prePopulateKnownValues: true,
    recaptchaEnabled: false,
  },
  createdAt: '2024-01-31T12:00:00Z',
  displayOptions: {
    renderRawHtml: false,
    style: {
      backgroundWidth: '100%',
      fontFamily: 'arial',
      helpTextColor: '#000',
      helpTextSize: '11px',
      labelTextColor: '#000',
      labelTextSize: '13px',
      legalConsentTextColor: '#000',
      legalConsentTextSize: '11px',
      submitAlignment: 'left',
      submitColor: '#f00',
      submitFontColor: '#fff',
      submitSize: '12px',
    },
    submitButtonText: 'Send',
    theme: 'default_style',
  },
  fieldGroups: [],
  formType: 'hubspot',
  legalConsentOptions: { type: 'none' },
  name: 'Newsletter',
  updatedAt: '2024-01-31T12:00:00Z',
};

const cases: RequestCase[] = [
  // Campaign spend and budget items.
  {
    tool: 'GetCampaignSpendItem',
    args: { campaign_guid: G, spend_item_identifier: 7 },
    method: 'GET',
    path: `${C}/spend/7`,
  },
  {
    tool: 'UpdateCampaignSpend',
    args: {
      campaign_guid: G,
      spend_amount: 1250.5,
      spend_identifier: 7,
      spend_item_name: 'Search ads',
      spend_order: 2,
      spend_item_description: 'Q2 search',
    },
    method: 'PUT',
    path: `${C}/spend/7`,
    body: { amount: 1250.5, name: 'Search ads', order: 2, description: 'Q2 search' },
  },
  {
    tool: 'RemoveCampaignSpendItem',
    args: { campaign_identifier: G, spend_item_id: 7 },
    method: 'DELETE',
    path: `${C}/spend/7`,
  },
  {
    tool: 'CreateCampaignSpend',
    args: { campaign_id: G, spend_amount: 99, spend_item_name: 'Print', spend_item_order: 1 },
    method: 'POST',
    path: `${C}/spend`,
    body: { amount: 99, name: 'Print', order: 1 },
  },
  {
    tool: 'CreateCampaignSpend',
    label: '(spend_description goes to the body as description)',
    args: {
      campaign_id: G,
      spend_amount: 99,
      spend_item_name: 'Print',
      spend_item_order: 1,
      spend_description: 'Flyers',
    },
    method: 'POST',
    path: `${C}/spend`,
    body: { amount: 99, name: 'Print', order: 1, description: 'Flyers' },
  },
  {
    tool: 'GetCampaignBudget',
    args: { budget_item_id: 12, campaign_guid: G },
    method: 'GET',
    path: `${C}/budget/12`,
  },
  {
    tool: 'UpdateCampaignBudget',
    args: {
      budget_amount: 5000,
      budget_id: 12,
      budget_item_name: 'Paid social',
      campaign_guid: G,
      priority_order: 3,
      budget_item_description: 'All networks',
    },
    method: 'PUT',
    path: `${C}/budget/12`,
    body: { amount: 5000, name: 'Paid social', order: 3, description: 'All networks' },
  },
  {
    tool: 'DeleteCampaignBudgetItem',
    args: { budget_item_id: 12, campaign_guid: G },
    method: 'DELETE',
    path: `${C}/budget/12`,
  },
  {
    tool: 'AddCampaignBudgetItem',
    args: {
      budget_amount: 750.25,
      budget_item_name: 'Events',
      budget_item_order: 0,
      campaign_id: G,
      budget_item_description: 'Booth',
    },
    method: 'POST',
    path: `${C}/budget`,
    body: { amount: 750.25, name: 'Events', order: 0, description: 'Booth' },
  },
  {
    tool: 'GetCampaignBudgetDetails',
    args: { campaign_unique_identifier: G },
    method: 'GET',
    path: `${C}/budget/totals`,
  },
  // Campaigns and assets.
  {
    tool: 'GetMarketingCampaigns',
    args: {
      campaign_name_filter: 'spring sale',
      max_results_limit: 100,
      pagination_cursor: 'abc',
      requested_properties: ['hs_name', 'hs_goal'],
      sort_by: '-updatedAt',
    },
    method: 'GET',
    path: '/marketing/v3/campaigns',
    query: [
      ['name', 'spring sale'],
      ['limit', '100'],
      ['after', 'abc'],
      ['properties', 'hs_name'],
      ['properties', 'hs_goal'],
      ['sort', '-updatedAt'],
    ],
  },
  {
    tool: 'CreateMarketingCampaign',
    args: { mode: 'execute', request_body: JSON.stringify(props) },
    method: 'POST',
    path: '/marketing/v3/campaigns',
    body: props,
  },
  {
    tool: 'CreateMarketingCampaignBatch',
    args: { mode: 'execute', request_body: JSON.stringify({ inputs: [props] }) },
    method: 'POST',
    path: '/marketing/v3/campaigns/batch/create',
    body: { inputs: [props] },
  },
  {
    tool: 'UpdateCampaignBatch',
    args: { mode: 'execute', request_body: JSON.stringify({ inputs: [{ id: G, ...props }] }) },
    method: 'POST',
    path: '/marketing/v3/campaigns/batch/update',
    body: { inputs: [{ id: G, ...props }] },
  },
  {
    tool: 'ArchiveCampaignsBatch',
    args: { mode: 'execute', request_body: JSON.stringify(ids) },
    method: 'POST',
    path: '/marketing/v3/campaigns/batch/archive',
    body: ids,
  },
  {
    tool: 'FetchMarketingCampaignBatches',
    args: {
      mode: 'execute',
      request_body: JSON.stringify(ids),
      fetch_start_date: '2024-01-01',
      end_date_for_asset_metrics: '2024-03-31',
      requested_properties: ['hs_name', 'hs_budget'],
    },
    method: 'POST',
    path: '/marketing/v3/campaigns/batch/read',
    query: [
      ['startDate', '2024-01-01'],
      ['endDate', '2024-03-31'],
      ['properties', 'hs_name'],
      ['properties', 'hs_budget'],
    ],
    body: ids,
  },
  {
    tool: 'GetCampaignDetails',
    args: {
      campaign_guid: G,
      end_date_for_asset_metrics: '2024-03-31',
      metrics_start_date: '2024-01-01',
      properties_list: ['hs_name'],
    },
    method: 'GET',
    path: C,
    query: [
      ['endDate', '2024-03-31'],
      ['startDate', '2024-01-01'],
      ['properties', 'hs_name'],
    ],
  },
  {
    tool: 'GetCampaignDetails',
    label: '(empty properties_list asks for none)',
    args: { campaign_guid: G, properties_list: [] },
    method: 'GET',
    path: C,
    query: [['properties', '']],
  },
  { tool: 'DeleteMarketingCampaign', args: { campaign_guid: G }, method: 'DELETE', path: C },
  {
    tool: 'UpdateCampaignProperties',
    args: { mode: 'execute', campaign_uuid: G, request_body: JSON.stringify(props) },
    method: 'PATCH',
    path: C,
    body: props,
  },
  {
    tool: 'AssociateAssetWithCampaign',
    args: { asset_id: 'form-88', asset_type: 'FORM', campaign_unique_identifier: G },
    method: 'PUT',
    path: `${C}/assets/FORM/form-88`,
  },
  {
    tool: 'DisassociateCampaignAsset',
    args: { asset_id: 'https://ex.com/a', asset_type: 'EXTERNAL_WEB_URL', campaign_unique_identifier: G },
    method: 'DELETE',
    path: `${C}/assets/EXTERNAL_WEB_URL/https://ex.com/a`,
  },
  {
    tool: 'ListCampaignAssets',
    args: {
      asset_type: 'MARKETING_EMAIL',
      campaign_identifier: G,
      end_date_for_asset_metrics: '2024-03-31',
      maximum_results_limit: '25',
      metrics_start_date: '2024-01-01',
      pagination_cursor: 'p2',
    },
    method: 'GET',
    path: `${C}/assets/MARKETING_EMAIL`,
    query: [
      ['endDate', '2024-03-31'],
      ['limit', '25'],
      ['startDate', '2024-01-01'],
      ['after', 'p2'],
    ],
  },
  {
    tool: 'GetCampaignAttributionMetrics',
    args: {
      campaign_unique_identifier: G,
      report_end_date: '2024-06-30',
      start_date_for_report: '2024-01-01',
    },
    method: 'GET',
    path: `${C}/reports/metrics`,
    query: [
      ['endDate', '2024-06-30'],
      ['startDate', '2024-01-01'],
    ],
  },
  {
    tool: 'GetCampaignRevenueReport',
    args: {
      campaign_unique_identifier: G,
      attribution_model: 'W_SHAPED',
      report_end_date: '2024-06-30',
      report_start_date: '2024-01-01',
    },
    method: 'GET',
    path: `${C}/reports/revenue`,
    query: [
      ['attributionModel', 'W_SHAPED'],
      ['endDate', '2024-06-30'],
      ['startDate', '2024-01-01'],
    ],
  },
  {
    tool: 'FetchCampaignContactIds',
    args: {
      campaign_identifier: G,
      contact_type_filter: 'influencedContacts',
      contact_fetch_limit: 40,
      pagination_cursor: 'n1',
      report_end_date: '2024-06-30',
      start_date: '2024-02-01',
    },
    method: 'GET',
    path: `${C}/reports/contacts/influencedContacts`,
    query: [
      ['limit', '40'],
      ['after', 'n1'],
      ['endDate', '2024-06-30'],
      ['startDate', '2024-02-01'],
    ],
  },
  // Forms.
  {
    tool: 'GetFormById',
    args: { form_id: 'f-1', return_archived_only: true },
    method: 'GET',
    path: '/marketing/v3/forms/f-1',
    query: [['archived', 'true']],
  },
  {
    tool: 'UpdateCrmForm',
    args: { mode: 'execute', crm_form_id: 'f-1', request_body: JSON.stringify({ id: 'f-1', ...form }) },
    method: 'PUT',
    path: '/marketing/v3/forms/f-1',
    body: { id: 'f-1', ...form },
  },
  {
    tool: 'UpdateCrmMarketingForm',
    args: { mode: 'execute', form_id: 'f-1', request_body: JSON.stringify({ name: 'Renamed' }) },
    method: 'PATCH',
    path: '/marketing/v3/forms/f-1',
    body: { name: 'Renamed' },
  },
  {
    tool: 'ArchiveMarketingForm',
    args: { form_id: 'f-1' },
    method: 'DELETE',
    path: '/marketing/v3/forms/f-1',
  },
  {
    tool: 'ListCrmForms',
    args: {
      included_form_types: ['hubspot', 'captured'],
      paging_cursor_token: 'MTA=',
      results_per_page: 20,
      return_only_archived_forms: false,
    },
    method: 'GET',
    path: '/marketing/v3/forms',
    query: [
      ['formTypes', 'hubspot'],
      ['formTypes', 'captured'],
      ['after', 'MTA='],
      ['limit', '20'],
      ['archived', 'false'],
    ],
  },
  {
    tool: 'CreateMarketingForm',
    args: { mode: 'execute', request_body: JSON.stringify(form) },
    method: 'POST',
    path: '/marketing/v3/forms',
    body: form,
  },
];

const modeSchemas: Record<string, unknown> = {
  CreateMarketingCampaign: schemas.createCampaignBody,
  CreateMarketingCampaignBatch: schemas.createCampaignsBatchBody,
  UpdateCampaignBatch: schemas.updateCampaignsBatchBody,
  ArchiveCampaignsBatch: schemas.archiveCampaignsBatchBody,
  FetchMarketingCampaignBatches: schemas.readCampaignsBatchBody,
  UpdateCampaignProperties: schemas.updateCampaignBody,
  UpdateCrmForm: schemas.replaceFormBody,
  UpdateCrmMarketingForm: schemas.updateFormBody,
  CreateMarketingForm: schemas.createFormBody,
};

/** Required parameters per tool, as the spec lists them (mode tools: only `mode`). */
const requiredParams: Record<string, string[]> = {
  GetCampaignSpendItem: ['campaign_guid', 'spend_item_identifier'],
  UpdateCampaignSpend: [
    'campaign_guid',
    'spend_amount',
    'spend_identifier',
    'spend_item_name',
    'spend_order',
  ],
  RemoveCampaignSpendItem: ['campaign_identifier', 'spend_item_id'],
  CreateCampaignSpend: ['campaign_id', 'spend_amount', 'spend_item_name', 'spend_item_order'],
  GetCampaignBudget: ['budget_item_id', 'campaign_guid'],
  UpdateCampaignBudget: ['budget_amount', 'budget_id', 'budget_item_name', 'campaign_guid', 'priority_order'],
  DeleteCampaignBudgetItem: ['budget_item_id', 'campaign_guid'],
  AddCampaignBudgetItem: ['budget_amount', 'budget_item_name', 'budget_item_order', 'campaign_id'],
  GetCampaignBudgetDetails: ['campaign_unique_identifier'],
  GetMarketingCampaigns: [],
  GetCampaignDetails: ['campaign_guid'],
  DeleteMarketingCampaign: ['campaign_guid'],
  AssociateAssetWithCampaign: ['asset_id', 'asset_type', 'campaign_unique_identifier'],
  DisassociateCampaignAsset: ['asset_id', 'asset_type', 'campaign_unique_identifier'],
  ListCampaignAssets: ['asset_type', 'campaign_identifier'],
  GetCampaignAttributionMetrics: ['campaign_unique_identifier'],
  GetCampaignRevenueReport: ['campaign_unique_identifier'],
  FetchCampaignContactIds: ['campaign_identifier', 'contact_type_filter'],
  GetFormById: ['form_id'],
  ArchiveMarketingForm: ['form_id'],
  ListCrmForms: [],
  ...Object.fromEntries(Object.keys(modeSchemas).map((t) => [t, ['mode']])),
};

const api = catalogSuite(suiteOptions);
const { call, errorOf } = api;
const today = () => new Date().toISOString().slice(0, 10);

describe('CrmMarketingApi campaigns and forms over MCP', () => {
  api.itListsTools(
    'lists the 30 tools with the spec’s required parameters and hints',
    {
      required: requiredParams,
      hints: {
        FetchMarketingCampaignBatches: { readOnlyHint: true },
        ArchiveCampaignsBatch: { destructiveHint: true },
        CreateMarketingCampaign: { readOnlyHint: false },
        GetCampaignDetails: { readOnlyHint: true },
      },
      propertySchemas: { ListCampaignAssets: { maximum_results_limit: { type: 'string', default: '10' } } },
    },
    () => {
      expect(Object.keys(requiredParams)).toHaveLength(30);
      expect(new Set(cases.map((c) => c.tool)).size).toBe(30);
    },
  );

  api.itSendsRequests(cases);

  it('percent-encodes an asset id that is a URL as one path segment', async () => {
    await call('DisassociateCampaignAsset', {
      asset_id: 'https://ex.com/a?b',
      asset_type: 'EXTERNAL_WEB_URL',
      campaign_unique_identifier: G,
    });
    expect(api.upstream.requests[0]!.rawPath).toBe(
      `${C}/assets/EXTERNAL_WEB_URL/https%3A%2F%2Fex.com%2Fa%3Fb`,
    );
  });

  it.each([
    ['GetCampaignAttributionMetrics', { campaign_unique_identifier: G }],
    ['GetCampaignRevenueReport', { campaign_unique_identifier: G }],
    ['FetchCampaignContactIds', { campaign_identifier: G, contact_type_filter: 'contactFirstTouch' }],
  ])('%s sends the report period defaults: 2006-01-01 to today', async (tool, args) => {
    const before = today();
    const result = await call(tool, args);
    const after = today();
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const query = api.upstream.requests[0]!.query;
    // Only the two dates: the API applies its own limit and attribution-model defaults.
    expect(query.map(([k]) => k)).toEqual(['endDate', 'startDate']);
    expect([before, after]).toContain(Object.fromEntries(query).endDate);
    expect(Object.fromEntries(query).startDate).toBe('2006-01-01');
  });

  it.each([
    ['GetMarketingCampaigns', {}],
    ['ListCampaignAssets', { asset_type: 'LANDING_PAGE', campaign_identifier: G }],
  ])('%s leaves page size and sort defaults to the API', async (tool, args) => {
    const result = await call(tool, args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(api.upstream.requests[0]!.query).toEqual([]);
  });

  it('a spend item without its order is refused before sending', async () => {
    const result = await call('CreateCampaignSpend', {
      campaign_id: G,
      spend_amount: 1,
      spend_item_name: 'x',
    });
    expect(errorOf(result).message).toMatch(/'spend_item_order' is required/);
    expect(api.upstream.requests).toHaveLength(0);
  });

  api.itReturnsRequestSchemas(modeSchemas);
});

describe('CrmMarketingApi campaigns and forms bad input', () => {
  api.itRejectsBadInput([
    ['limit 0', 'GetMarketingCampaigns', { max_results_limit: 0 }, /'max_results_limit' must be >= 1/],
    ['limit 101', 'GetMarketingCampaigns', { max_results_limit: 101 }, /'max_results_limit' must be <= 100/],
    ['non-integer limit', 'GetMarketingCampaigns', { max_results_limit: 2.5 }, /'max_results_limit'/],
    ['bad sort field', 'GetMarketingCampaigns', { sort_by: 'name' }, /'sort_by' must be one of/],
    ['bad sort prefix', 'GetMarketingCampaigns', { sort_by: '+createdAt' }, /'sort_by' must be one of/],
    [
      'non-UUID campaign',
      'GetCampaignDetails',
      { campaign_guid: '12345' },
      /'campaign_guid' must be a valid uuid/,
    ],
    [
      'non-UUID campaign on a report',
      'GetCampaignBudgetDetails',
      { campaign_unique_identifier: 'not-a-uuid' },
      /'campaign_unique_identifier' must be a valid uuid/,
    ],
    [
      'non-UUID campaign on a mode tool',
      'UpdateCampaignProperties',
      { mode: 'execute', campaign_uuid: 'abc', request_body: JSON.stringify(props) },
      /'campaign_uuid' must be a valid uuid/,
    ],
    [
      'missing (x) campaign',
      'UpdateCampaignProperties',
      { mode: 'execute', request_body: JSON.stringify(props) },
      /'campaign_uuid' is required when mode is execute/,
    ],
    [
      'bad asset_type',
      'AssociateAssetWithCampaign',
      { asset_id: '1', asset_type: 'EMAIL', campaign_unique_identifier: G },
      /'asset_type' must be one of: "FORM", "OBJECT_LIST", "EXTERNAL_WEB_URL"/,
    ],
    [
      'lower-case asset_type',
      'DisassociateCampaignAsset',
      { asset_id: '1', asset_type: 'form', campaign_unique_identifier: G },
      /'asset_type' must be one of/,
    ],
    [
      'bad attribution_model',
      'GetCampaignRevenueReport',
      { campaign_unique_identifier: G, attribution_model: 'LAST_TOUCH' },
      /'attribution_model' must be one of/,
    ],
    [
      'bad contact_type_filter',
      'FetchCampaignContactIds',
      { campaign_identifier: G, contact_type_filter: 'allContacts' },
      /'contact_type_filter' must be one of/,
    ],
    [
      'bad date format',
      'GetCampaignAttributionMetrics',
      { campaign_unique_identifier: G, report_end_date: '06/30/2024' },
      /'report_end_date' must be a valid date \(YYYY-MM-DD\)/,
    ],
    [
      'impossible date',
      'GetCampaignRevenueReport',
      { campaign_unique_identifier: G, report_start_date: '2024-02-30' },
      /'report_start_date' must be a valid date/,
    ],
    [
      'date-time instead of date',
      'FetchMarketingCampaignBatches',
      { mode: 'execute', request_body: JSON.stringify(ids), fetch_start_date: '2024-01-01T00:00:00Z' },
      /'fetch_start_date' must be a valid date/,
    ],
    [
      'non-numeric asset page size',
      'ListCampaignAssets',
      { asset_type: 'FORM', campaign_identifier: G, maximum_results_limit: 'ten' },
      /'maximum_results_limit'/,
    ],
    [
      'numeric asset page size (spec type is string)',
      'ListCampaignAssets',
      { asset_type: 'FORM', campaign_identifier: G, maximum_results_limit: 10 },
      /'maximum_results_limit' must be of type string/,
    ],
    [
      'non-integer spend id',
      'GetCampaignSpendItem',
      { campaign_guid: G, spend_item_identifier: 'seven' },
      /'spend_item_identifier' must be of type integer/,
    ],
    [
      'missing budget amount',
      'AddCampaignBudgetItem',
      { budget_item_name: 'x', budget_item_order: 1, campaign_id: G },
      /'budget_amount' is required/,
    ],
    [
      'bad form type',
      'ListCrmForms',
      { included_form_types: ['popup'] },
      /'included_form_types\[0\]' must be one of/,
    ],
    [
      'invalid JSON request_body',
      'CreateMarketingCampaign',
      { mode: 'execute', request_body: '{"properties": {' },
      /not valid JSON/,
    ],
    [
      'schema-violating campaign body',
      'UpdateCampaignBatch',
      { mode: 'execute', request_body: JSON.stringify({ inputs: [{ properties: { hs_name: 1 } }] }) },
      /request_body\.inputs\[0\]/,
    ],
    [
      'schema-violating form body',
      'UpdateCrmMarketingForm',
      { mode: 'execute', form_id: 'f-1', request_body: JSON.stringify({ archived: 'no' }) },
      /request_body\.archived must be of type boolean/,
    ],
    [
      'missing request_body',
      'CreateMarketingForm',
      { mode: 'execute' },
      /'request_body' is required when mode is execute/,
    ],
  ]);
});
