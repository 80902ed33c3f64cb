import { globs, names } from './shapes.js';

export const toolSetConfig = {
  title: 'ToolSetConfig',
  description: 'Settings of one tool set, keyed by its name (e.g. `CrmEventsApi`).',
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean', description: 'false hides every tool of the set.', default: true },
    baseUrl: {
      type: 'string',
      format: 'uri',
      description: "Base URL of the set's default server: a proxy, a regional endpoint, a test server.",
    },
    baseUrls: {
      type: 'object',
      additionalProperties: { type: 'string', format: 'uri' },
      description: "Base URLs per server key (e.g. GridApi's `scim`, `content`).",
    },
    settings: {
      type: 'object',
      description: "Plugin settings, checked against the plugin's schema (e.g. CdpPipelinesApi `region`).",
      'x-env': '<TOOL_SET>_<SETTING> (e.g. CRM_AUTOMATION_API_USER_ID)',
    },
    pacing: {
      description:
        "Another request rate than the plugin's (GridApi: 5 a second per base; each HubSpot tool set: 9 a second per connection, shared by the three), or false where something else paces.",
      oneOf: [
        { const: false },
        {
          type: 'object',
          additionalProperties: false,
          required: ['requestsPerSecond'],
          properties: { requestsPerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 10_000 } },
        },
      ],
    },
  },
} as const;

const recordBytes = { type: 'integer', minimum: 65536, maximum: 1073741824, default: 16777216 } as const;
/** `tools`: which tools are exposed. */
export const toolsSection = {
  type: 'object',
  additionalProperties: false,
  description: 'Which tools are exposed.',
  properties: {
    toolSets: {
      ...names,
      description: 'Expose only these tool sets; by default every loaded one.',
      'x-env': 'TOOLHOST_TOOL_SETS',
      'x-flag': '--tool-sets',
    },
    allow: {
      ...globs,
      description: 'Globs on canonical names (`CrmEventsApi.*`); by default every tool.',
      'x-env': 'TOOLHOST_ALLOW',
      'x-flag': '--allow',
    },
    deny: {
      ...globs,
      description: 'Globs on canonical names, applied after `allow`.',
      'x-env': 'TOOLHOST_DENY',
      'x-flag': '--deny',
    },
    readOnly: {
      type: 'boolean',
      description: 'Expose only tools that change nothing upstream.',
      default: false,
      'x-env': 'TOOLHOST_READ_ONLY',
      'x-flag': '--read-only',
    },
    confirmWrites: {
      type: 'boolean',
      description:
        'Ask the person (MCP form elicitation, showing the exact request) before any tool that is not read-only sends; a client that cannot be asked gets `confirmation_required` with a preview to apply (a piped `toolhost call`, none: nobody can apply it).',
      default: false,
      'x-env': 'TOOLHOST_CONFIRM_WRITES',
      'x-flag': '--confirm-writes',
    },
    previewTtlSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      description: 'How long a write preview (`preview_tool_call`) can be applied, in seconds.',
      default: 600,
    },
    previewsPerUser: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      description:
        'How many unexpired write previews one user may hold on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting.',
      default: 100,
    },
    idempotencyKeysPerUser: {
      type: 'integer',
      minimum: 1,
      maximum: 1000000,
      description:
        'How many idempotency keys holding outcomes one user may have on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting. Writes confirmed on MCP 2026-07-28 (whose outcomes answer a retry of their confirmation for 10 minutes) are bounded alike, counted apart.',
      default: 1000,
    },
    writeRecordBytesPerUser: {
      ...recordBytes,
      description: 'With Redis: bytes of previews and idempotency records a user may keep; more is refused.',
    },
    idempotencyTtlSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 2592000,
      description:
        'How long an idempotency key answers its first outcome instead of sending again, in seconds.',
      default: 86400,
    },
    idempotencyClaimSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 600,
      description:
        "With Redis: how long an idempotency key's (or a 2026-07-28 confirmation's) claim outlives a replica that stopped renewing it (it renews every third of this while its call runs), in seconds. A retry then answers `idempotency_outcome_unknown` (`confirmation_outcome_unknown`) instead of waiting.",
      default: 10,
    },
    idempotencyWaitSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 600,
      description:
        'How long a call waits for the same key (or 2026-07-28 confirmation) still running elsewhere before answering `idempotency_in_progress` (`confirmation_in_progress`; retryable), in seconds.',
      default: 10,
    },
  },
} as const;
