import { describe, expect, it } from 'vitest';
import { requestIntent } from './request-intent.js';
import { processTerm, queryIntent, tokenize } from './search-terms.js';
import type { SearchableTool } from './searchable-tool.js';
import { describedTool, SHEET_AND_MAIL_TOOLS } from './test-support/described-tool.js';
import { ToolIndex } from './tool-index.js';

const tool = describedTool;
const tools = SHEET_AND_MAIL_TOOLS;
const index = new ToolIndex(tools);
const top = (query: string, toolSet?: string) => index.search(query, { toolSet }).map((m) => m.name);

describe('search terms', () => {
  it('splits names and text into words, camelCase and punctuation included', () => {
    expect(tokenize('ListGridRecords')).toEqual(['List', 'Grid', 'Records']);
    expect(tokenize('send to Customer.io, A/B test')).toEqual(['send', 'to', 'customerio', 'abtest', 'test']);
  });

  it('maps the words users say to the words the catalog says, stemmed', () => {
    expect(processTerm('rows')).toEqual(processTerm('record'));
    expect(processTerm('newsletter')).toEqual([...processTerm('marketing'), ...processTerm('email')]);
    expect(processTerm('the')).toEqual([]);
  });

  it('tells a request to look from a request to change', () => {
    expect(queryIntent('show the comments on a row')).toBe('read');
    expect(queryIntent('delete a row')).toBe('write');
    expect(queryIntent('what can I delete')).toBeUndefined();
  });
});

describe('ToolIndex', () => {
  it('finds a tool by the words users use (rows for records, webinar for marketing event)', () => {
    expect(top('get all the rows of my table')[0]).toBe('SheetApi.ListSheetRecords');
    expect(top('look up the webinar 42')[0]).toBe('MailApi.GetMarketingEvent');
    expect(top('newsletters we sent')[0]).toBe('MailApi.ListMarketingEmails');
  });

  it('prefers tools that only read when the request only asks to look, and the other way round', () => {
    expect(top('show the comments on a record')[0]).toBe('SheetApi.GetRecordComments');
    expect(top('reply to the comment on a record')[0]).toBe('SheetApi.AddRecordComment');
  });

  it('takes an email address in a request as a hint for tools that take people by email', () => {
    expect(top('mark jane@example.com as attended')[0]).toBe('MailApi.RegisterByEmail');
  });

  it('filters by tool set, limits the count and returns what search_tools shows', () => {
    expect(top('record', 'mailapi')).toEqual(['MailApi.RegisterByEmail']);
    const found = index.search('record', { limit: 2 });
    expect(found).toHaveLength(2);
    expect(found[0]).toMatchObject({ toolSet: 'SheetApi', readOnly: expect.any(Boolean) });
    expect(found[0]!.score).toBeGreaterThanOrEqual(found[1]!.score);
  });

  it('finds nothing for a request of common words only', () => {
    expect(index.search('what is this')).toEqual([]);
  });
});

function endpoint(
  name: string,
  method: string,
  path: string,
  description: string,
  params: Record<string, string> = {},
): SearchableTool {
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return {
    name: `DemoApi.${name}`,
    toolSet: 'DemoApi',
    description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(
        [...new Set([...pathParams, ...Object.keys(params)])].map((p) => [
          p,
          { type: 'string', ...(params[p] ? { description: params[p] } : {}) },
        ]),
      ),
      required: pathParams,
    },
    hints: { readOnly: method === 'GET' },
    endpoint: { method, path, pathParams },
  };
}

describe('ToolIndex on declared endpoints', () => {
  const shaped = new ToolIndex([
    endpoint(
      'GetEventById',
      'GET',
      '/v3/marketing-events/{objectId}',
      'Demo: get a marketing event (webinar, conference) with its details by its internal object id.',
      { objectId: 'Internal event id.' },
    ),
    endpoint(
      'GetEventByExternalId',
      'GET',
      '/v3/marketing-events/events/{externalEventId}',
      'Demo: get a marketing event by external event id.',
    ),
    endpoint('DeleteBase', 'DELETE', '/meta/bases/{baseId}', 'Demo: delete a base.', { baseId: 'app…' }),
    endpoint(
      'RemoveBaseCollaborator',
      'DELETE',
      '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
      "Demo: remove a user's access to a base.",
      { baseId: 'app…', userOrGroupId: 'usr…' },
    ),
    endpoint(
      'UpdateBaseCollaborator',
      'PATCH',
      '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
      "Demo: change a collaborator's (user's or group's) permission level on a base (read, comment, edit, create).",
      { baseId: 'app…', userOrGroupId: 'usr…' },
    ),
    endpoint(
      'UpdateInterfaceCollaborator',
      'PATCH',
      '/meta/bases/{baseId}/interfaces/{pageBundleId}/collaborators/{userOrGroupId}',
      "Demo: change an interface-only collaborator's permission level.",
      { baseId: 'app…', pageBundleId: 'pbd…', userOrGroupId: 'usr…' },
    ),
    endpoint('GetRecord', 'GET', '/{baseId}/{tableId}/{recordId}', 'Demo: get one record of a table.', {
      recordId: 'rec…',
    }),
    endpoint(
      'ListComments',
      'GET',
      '/{baseId}/{tableId}/{recordId}/comments',
      'Demo: list comments on a record.',
      {
        recordId: 'rec…',
      },
    ),
    endpoint('AddComment', 'POST', '/{baseId}/{tableId}/{recordId}/comments', 'Demo: comment on a record.', {
      recordId: 'rec…',
    }),
    endpoint(
      'ReadTableRecords',
      'POST',
      '/{accountId}/{dataTableId}/getRecords',
      'Demo HyperDB table: read records by primary key.',
    ),
    endpoint(
      'PublishEmail',
      'POST',
      '/v3/emails/{emailId}/publish',
      'Demo: publish a marketing email: send it to its lists now.',
    ),
    endpoint(
      'SendEmail',
      'POST',
      '/v4/email/single-send',
      'Demo: send a published marketing email to one recipient.',
      { to: 'Recipient email address.' },
    ),
  ]);
  const first = (query: string) => shaped.search(query)[0]?.name;

  it("tells twins apart by whose id the request names the object by, not by their descriptions' words", () => {
    expect(first('show webinar 52001')).toBe('DemoApi.GetEventById');
    expect(first('show webinar wb-31')).toBe('DemoApi.GetEventByExternalId');
    expect(first("show the webinar by our app's own id")).toBe('DemoApi.GetEventByExternalId');
  });

  it('prefers the tool nested under fewer objects the request does not name', () => {
    expect(first('base collaborator permission change')).toBe('DemoApi.UpdateBaseCollaborator');
    expect(first('interface collaborator permission change')).toBe('DemoApi.UpdateInterfaceCollaborator');
  });

  it("says how twins differ by their descriptions' first clauses when their shapes cannot", () => {
    const cdp = new ToolIndex([
      endpoint('Identify', 'POST', '/identify', 'Demo: identify a person (userId) and set their traits.'),
      endpoint(
        'Group',
        'POST',
        '/group',
        'Demo: add a person to a group, e.g. a company, and set its traits.',
      ),
    ]);
    expect(cdp.search('identify a person')[0]?.differs).toBe(
      'identify a person and set their traits, not add a person to a group (Group)',
    );
  });

  it('reads a bare noun phrase as a look-up of several when its object is plural', () => {
    expect(first('comments on record recA1s2D3f4G5h6J7')).toBe('DemoApi.ListComments');
  });

  it('finds catalog words written in mixed case as users type them', () => {
    expect(first('hyperdb records')).toBe('DemoApi.ReadTableRecords');
  });

  it('does not take "the published email" for a request to publish, nor an email id for an address', () => {
    expect(first('send the published email to ann@example.com')).toBe('DemoApi.SendEmail');
  });
});

describe('ToolIndex on requests in agents’ own words', () => {
  const demo = new ToolIndex([
    endpoint(
      'ListComments',
      'GET',
      '/{baseId}/{tableId}/{recordId}/comments',
      'Demo: list the comments on a record.',
    ),
    endpoint('AddComment', 'POST', '/{baseId}/{tableId}/{recordId}/comments', 'Demo: comment on a record.'),
    endpoint(
      'DeleteRecord',
      'DELETE',
      '/{baseId}/{tableId}/{recordId}',
      'Demo: delete one record of a table.',
    ),
    endpoint(
      'DeleteRecords',
      'DELETE',
      '/{baseId}/{tableId}',
      'Demo: delete several records of a table by id.',
    ),
    endpoint(
      'ListRevisions',
      'GET',
      '/v3/emails/{emailId}/revisions',
      'Demo: list the revisions of an email.',
    ),
    endpoint(
      'GetRevision',
      'GET',
      '/v3/emails/{emailId}/revisions/{revisionId}',
      'Demo: get one revision of an email.',
    ),
    endpoint(
      'RestoreRevision',
      'POST',
      '/v3/emails/{emailId}/revisions/{revisionId}/restore',
      'Demo: restore a revision of an email as its live version.',
    ),
    endpoint('ListWebhooks', 'GET', '/bases/{baseId}/webhooks', 'Demo: list the webhooks of a base.'),
    endpoint(
      'DeleteWebhook',
      'DELETE',
      '/bases/{baseId}/webhooks/{webhookId}',
      'Demo: delete a webhook of a base.',
    ),
    endpoint(
      'DeleteWorkspaceInvite',
      'DELETE',
      '/workspaces/{workspaceId}/invites/{inviteId}',
      'Demo: delete a pending invite to a workspace.',
    ),
    endpoint(
      'AddWorkspaceCollaborator',
      'POST',
      '/workspaces/{workspaceId}/collaborators',
      'Demo: share a workspace: add users with a permission level.',
    ),
    endpoint(
      'ListAuditEvents',
      'GET',
      '/audit/{accountId}/auditLogEvents',
      'Demo: list audit log events (who did what).',
    ),
    endpoint('WhoAmI', 'GET', '/meta/whoami', "Demo: who am I: the token's user id and scopes."),
    endpoint('ListUsers', 'GET', '/users', 'Demo: list users.'),
    endpoint('ListScimUsers', 'GET', '/scim/Users', 'Demo SCIM: list provisioned users.'),
    endpoint('GrantAdmin', 'POST', '/users/grantAdminAccess', 'Demo: make users admins.'),
    endpoint('ListAdmins', 'GET', '/admins', 'Demo: list the admin users.'),
    endpoint('GetBaseAccess', 'GET', '/meta/bases/{baseId}', 'Demo: one base and who has access to it.'),
    endpoint('ListBases', 'GET', '/meta/bases', 'Demo: list all bases the token can access.'),
  ]);
  const first = (query: string) => demo.search(query)[0]?.name;

  it('reads post, revert and other verbs by the operation they stand for', () => {
    expect(first('post a comment on a record')).toBe('DemoApi.AddComment');
    expect(first('revert an email to a previous version')).toBe('DemoApi.RestoreRevision');
    expect(first('roll back the email to an older version')).toBe('DemoApi.RestoreRevision');
  });

  it('reads what is no longer wanted as taking away, and write, save and create-or-overwrite by their operations', () => {
    expect(requestIntent("blog post 777 shouldn't be part of campaign 9 anymore", []).op).toBe('delete');
    expect(requestIntent('ann@x.com should no longer be an admin', []).op).toBe('delete');
    expect(requestIntent("write the comment 'checked' on record 5", []).op).toBe('create');
    expect(requestIntent('save the changes to the draft', []).op).toBe('update');
    expect(requestIntent('create or overwrite the event with external id wb-200', []).op).toBe('upsert');
  });

  it('does not take the verb for the object: inviting someone is not about invites', () => {
    expect(first('invite someone to a workspace')).toBe('DemoApi.AddWorkspaceCollaborator');
  });

  it('reads "log" followed by an object as tracking, and being logged in as who one is', () => {
    const logs = new ToolIndex([
      endpoint('Page', 'POST', '/page', 'Demo: record (track) a website page view.'),
      endpoint('WhoAmI', 'GET', '/meta/whoami', "Demo: who am I: the token's user id and scopes."),
      endpoint('ListAuditEvents', 'GET', '/audit/{accountId}/auditLogEvents', 'Demo: list audit log events.'),
      endpoint('GetAuditLog', 'GET', '/audit/{accountId}/auditLogs/{taskId}', 'Demo: one audit log export.'),
    ]);
    const names = (query: string) => logs.search(query).map((m) => m.name);
    expect(names('log a page visit for analytics')).toEqual(['DemoApi.Page']);
    expect(names('who am I logged in as')).toEqual(['DemoApi.WhoAmI']);
  });

  it('corrects a misspelt word to a catalog word one edit away, and keeps phrases whole', () => {
    expect(first('delte the webhok')).toBe('DemoApi.DeleteWebhook');
  });

  it('reads "is there a way to …" as the doing, and a question as looking', () => {
    expect(requestIntent('is there a way to delete a webhook?', []).op).toBe('delete');
    expect(requestIntent('how can we add a column', []).op).toBe('create');
    // A question put to whoever is asked asks them to do something: its verb says what.
    expect(requestIntent('are you planning to wrap create table as well?', []).op).toBe('create');
    expect(requestIntent('do you delete the webhook when the base goes?', []).op).toBe('delete');
    const admins = demo.search('which users have admin access?').map((m) => m.name);
    expect(admins[0]).toBe('DemoApi.ListAdmins');
    // Granting says all three words (users, admin, access) where listing users says one: the
    // question keeps it below the admins' list, not below every tool that reads users.
    expect(admins.indexOf('DemoApi.GrantAdmin')).toBeGreaterThan(0);
  });

  it('changes several when the object to change is plural, one when it is singular', () => {
    expect(first('remove rows from the table')).toBe('DemoApi.DeleteRecords');
    expect(first('remove a record from the Projects table')).toBe('DemoApi.DeleteRecord');
  });

  it('sends several ids named in a request to the tool that takes several', () => {
    const records = new ToolIndex([
      endpoint(
        'DeleteRecord',
        'DELETE',
        '/{baseId}/{tableId}/{recordId}',
        'Demo: delete one record of a table.',
        {
          recordId: 'rec…',
        },
      ),
      endpoint('DeleteRecords', 'DELETE', '/{baseId}/{tableId}', 'Demo: delete records of a table by id.', {
        records: 'Record ids, rec…',
      }),
    ]);
    expect(records.search('delete recA1s2D3f4G5h6J7 and recZ9x8C7v6B5n4M3')[0]?.name).toBe(
      'DemoApi.DeleteRecords',
    );
    expect(records.search('delete recA1s2D3f4G5h6J7')[0]?.name).toBe('DemoApi.DeleteRecord');
  });

  it('prefers the product at large to a part of it the request does not name', () => {
    // The SCIM one's shorter description scores its text higher.
    const users = new ToolIndex([
      endpoint('ListScimUsers', 'GET', '/scim/Users', 'Demo SCIM: list users.'),
      endpoint('ListUsers', 'GET', '/users', 'Demo: list users, paged, with their names and emails.'),
    ]);
    expect(users.search('list users')[0]?.name).toBe('DemoApi.ListUsers');
    expect(users.search('list scim users')[0]?.name).toBe('DemoApi.ListScimUsers');
  });

  it('reads "this base" as one base the caller has in mind', () => {
    expect(requestIntent('who has access to this base', []).named).toBe(true);
    expect(requestIntent('who has access to bases', []).named).toBe(false);
    expect(first('who has access to this base')).toBe('DemoApi.GetBaseAccess');
  });
  it('weighs the tool that reads an object as a list when no tool lists that object', () => {
    // As in HubSpot's automation API: workflows are read by id in a batch, never listed.
    const flows = new ToolIndex([
      {
        ...endpoint(
          'ReadFlows',
          'POST',
          '/v4/flows/batch/read',
          'Demo: read several workflows by id in one batch.',
        ),
        hints: { readOnly: true },
      },
      endpoint(
        'FlowEmailCampaigns',
        'GET',
        '/v4/flows/email-campaigns',
        'Demo: list the email campaigns sent by workflows.',
      ),
    ]);
    const score = (name: string) =>
      flows.search('list all workflows').find((m) => m.name === name)?.score ?? 0;
    // Its text is ahead (it says "list"); reading workflows counts as listing them, so the
    // operation no longer widens the gap by the difference between listing and reading one.
    expect(score('DemoApi.FlowEmailCampaigns') - score('DemoApi.ReadFlows')).toBeLessThan(1);
  });

  it('takes marking contacts with a state as a change, by the tool that sets the state', () => {
    const events = new ToolIndex([
      endpoint(
        'RecordAttendance',
        'POST',
        '/events/{eventId}/attendance/{subscriberState}/create',
        "Demo: record contacts' attendance state (registered, attended or cancelled) for an event.",
      ),
      endpoint(
        'ParticipationBreakdown',
        'GET',
        '/events/participations/{eventId}/breakdown',
        'Demo: participations per contact (registered, attended…) of an event.',
      ),
      // Other tools of the set: in a catalog of two, every word is in half the tools and none
      // is rarer than another.
      endpoint('ListEvents', 'GET', '/events', 'Demo: list marketing events.'),
      endpoint('GetEvent', 'GET', '/events/{eventId}', 'Demo: get one marketing event.'),
      endpoint('DeleteEvent', 'DELETE', '/events/{eventId}', 'Demo: delete a marketing event.'),
    ]);
    expect(events.search('mark attendees of an event as attended')[0]?.name).toBe('DemoApi.RecordAttendance');
  });
});

describe('search terms of agents’ words', () => {
  it('gives an agent noun the stem of its act: attendees attend', () => {
    expect(processTerm('attendees')).toContain(processTerm('attend')[0]);
    expect(processTerm('coffee')).toEqual(processTerm('coffee').slice(0, 1));
  });
});

/** An endpoint without path parameters, for a tool built by `tool`. */
const route = (method: string, path: string) => ({ method, path, pathParams: [] });

describe('ranking beside other products’ tools', () => {
  const catalog: SearchableTool[] = [
    {
      ...tool('SheetApi.UpdateSheetRecord', 'Sheets: update one record of a table.', false, ['record_id']),
      endpoint: route('PATCH', '/tables/records'),
    },
    {
      ...tool('SheetApi.ReplaceSheetRecord', 'Sheets: replace one record of a table.', false, ['record_id']),
      endpoint: route('PUT', '/tables/records'),
    },
    {
      ...tool('SheetApi.ListSheetRecords', 'Sheets: list records of a table.', true, [
        'filter_by_formula',
        'page_size',
      ]),
      endpoint: route('GET', '/tables/records'),
    },
    {
      ...tool('SheetApi.GetSheetRecord', 'Sheets: get one record of a table.', true, ['record_id']),
      endpoint: route('GET', '/tables/records/one'),
    },
    {
      ...tool(
        'DnsHostApi.UpdateDomainRecord',
        'Update a DNS record of a domain: its name, data, priority or TTL.',
        false,
        ['domain_name'],
      ),
      endpoint: route('PATCH', '/domains/records'),
    },
    {
      ...tool(
        'DnsHostApi.ListDomainRecords',
        'List the DNS records of a domain, a page of a given size at a time.',
        true,
        ['domain_name'],
      ),
      endpoint: route('GET', '/domains/records'),
    },
  ];
  const mixed = new ToolIndex(catalog);
  const first = (query: string) => mixed.search(query)[0]?.name;

  it('reads a product from the name a description starts with, never from a verb before its colon', () => {
    // `dnshost` is said nowhere in the tools' text: only its tool set's name says the product.
    expect(first('update a record')).toBe('SheetApi.UpdateSheetRecord');
    expect(first('update a record on dnshost')).toBe('DnsHostApi.UpdateDomainRecord');
  });

  it('takes a parameter written as code for the tools that take it', () => {
    expect(first('records come back unfiltered although I pass filterByFormula')).toBe(
      'SheetApi.ListSheetRecords',
    );
  });

  it('takes an HTTP method in capitals for the tools that use it', () => {
    expect(first('Sheets: a PUT on a record clears what is not sent')).toBe('SheetApi.ReplaceSheetRecord');
  });

  it('reads a feature request by what it asks for, not as an adding', () => {
    expect(first('Sheets: add support for one record by id')).toBe('SheetApi.GetSheetRecord');
  });
});

describe('ToolIndex beside another product’s tools', () => {
  const mixed = new ToolIndex([
    endpoint(
      'UploadAttachment',
      'POST',
      '/{baseId}/{recordId}/{fieldId}/uploadAttachment',
      "Airtable: upload a file into a record's attachment field.",
    ),
    endpoint('ListBases', 'GET', '/meta/bases', 'Airtable: list all bases (databases) the token can access.'),
    {
      ...endpoint('UploadFile', 'POST', '/v2/files', 'Upload a file to a storage bucket; returns its URL.'),
      name: 'Storage.UploadFile',
      toolSet: 'Storage',
    },
    {
      ...endpoint('ListDatabases', 'GET', '/v2/databases', 'List the managed databases of the account.'),
      name: 'Storage.ListDatabases',
      toolSet: 'Storage',
    },
  ]);
  const names = (query: string) => mixed.search(query).map((m) => m.name);

  it("keeps another product's words in their own sense: its files are no attachments, its databases no bases", () => {
    expect(names('attachment')).toEqual(['DemoApi.UploadAttachment']);
    expect(names('bases')).not.toContain('Storage.ListDatabases');
  });

  it('still finds the other product’s tools by the words as written, below the mapped ones', () => {
    expect(names('upload a file to the storage bucket')[0]).toBe('Storage.UploadFile');
    expect(names('list databases').slice(0, 2)).toEqual(['DemoApi.ListBases', 'Storage.ListDatabases']);
  });
});

describe('ToolIndex telling a tool from its siblings', () => {
  const siblings = new ToolIndex([
    endpoint(
      'ListRecords',
      'GET',
      '/{baseId}/{tableIdOrName}',
      'Demo: list records (rows) of a table, with filter formula, sort and paging.',
    ),
    endpoint(
      'GetRecord',
      'GET',
      '/{baseId}/{tableIdOrName}/{recordId}',
      'Demo: get one record (row) of a table by id.',
    ),
    endpoint(
      'ListTables',
      'GET',
      '/meta/bases/{baseId}/tables',
      "Demo: list a base's tables with their fields.",
    ),
    endpoint(
      'SendEvent',
      'POST',
      '/events/send',
      'Demo: send (track) one custom event occurrence for a contact.',
    ),
    endpoint(
      'DefineEvent',
      'POST',
      '/events/definitions',
      'Demo: define a new custom event, with its properties.',
    ),
  ]);
  const first = (query: string) => siblings.search(query)[0]?.name;

  it('lists where "a list of" is what is got, the object being what the list is of', () => {
    expect(first('is there a way to get a list of all tables for a user?')).toBe('DemoApi.ListTables');
  });

  it('reads one record where one is singled out, even beside a plural said elsewhere', () => {
    expect(first('field ids for many records: retrieve a record keyed by field ids')).toBe(
      'DemoApi.GetRecord',
    );
  });

  it('counts with the list, not with the tool that reads one by id', () => {
    expect(first('total record count of a table')).toBe('DemoApi.ListRecords');
  });

  it('sends the events a participle says were defined, rather than defining one', () => {
    expect(first('trigger custom events defined in the account for a contact')).toBe('DemoApi.SendEvent');
  });
});

describe('ToolIndex weighing which product acts on the objects a request names', () => {
  const sheet = (name: string, description: string, method: string, path: string): SearchableTool => ({
    ...tool(`SheetApi.${name}`, `Sheets: ${description}`, method === 'GET', ['record_id']),
    endpoint: route(method, path),
  });
  const host = (name: string, description: string, path: string): SearchableTool => ({
    ...tool(`CloudHostApi.${name}`, description, true, ['query']),
    endpoint: route('GET', path),
  });
  const mixed = new ToolIndex([
    sheet('ListSheetRecords', 'list records of a table.', 'GET', '/tables/{tableId}/records'),
    sheet('GetSheetRecord', 'get one record of a table.', 'GET', '/tables/{tableId}/records/{recordId}'),
    sheet(
      'UpdateSheetRecord',
      'update one record of a table.',
      'PATCH',
      '/tables/{tableId}/records/{recordId}',
    ),
    sheet(
      'DeleteSheetRecord',
      'delete one record of a table.',
      'DELETE',
      '/tables/{tableId}/records/{recordId}',
    ),
    {
      ...host('ListDomainRecords', 'List the DNS records of a domain.', '/domains/{name}/records'),
      inputSchema: { type: 'object', properties: {} },
    },
    host('ListDroplets', 'List the droplets matching a query, with their state.', '/droplets'),
    host('ListFirewalls', 'List the firewalls matching a query, with their rules.', '/firewalls'),
    host('ListVolumes', 'List the volumes matching a query, with their size.', '/volumes'),
    host('ListImages', 'List the images matching a query, with their distribution.', '/images'),
  ]);
  const first = (query: string) => mixed.search(query)[0]?.name;

  it('favours the tool set whose tools act on the object over one whose words the request shares', () => {
    // Word by word the host's speaks more of the request ("query" is said by most of its tools);
    // records are what the sheets' tools act on, and only one of the host's.
    expect(first('query all records modified today')).toBe('SheetApi.ListSheetRecords');
  });

  it('is fair to either product: a request about the other one’s objects finds its tool', () => {
    expect(first('query the records of a domain')).toBe('CloudHostApi.ListDomainRecords');
  });
});
