/**
 * The declaration vocabulary of this contract version as a JSON Schema: every field a tool
 * declaration may use, and nothing else. The host checks each plugin's declarations against
 * the schema of its own core when it loads them, so a plugin cannot rely on a field the
 * executing engine does not know; a test fingerprints the schema, so the vocabulary cannot
 * change without a new contract version.
 *
 * Kept as plain data (no validator here): importing the contract must not load ajv.
 */

const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const schemaObject = { type: 'object' } as const;

const bodyLimits = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxBytes: { type: 'integer', minimum: 1 },
    perItem: {
      type: 'object',
      additionalProperties: false,
      required: ['property', 'maxBytes'],
      properties: { property: { type: 'string' }, maxBytes: { type: 'integer', minimum: 1 } },
    },
  },
} as const;

export const PARAM_VOCABULARY = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'schema', 'in'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    description: { type: 'string' },
    schema: schemaObject,
    required: { type: 'boolean' },
    in: { enum: ['path', 'query', 'header', 'body'] },
    apiName: { type: 'string', minLength: 1 },
    bodyPath: { type: 'string', minLength: 1 },
    wholeBody: { type: 'boolean' },
    style: { enum: ['form', 'comma', 'brackets', 'deepObject', 'prefixed', 'json'] },
    keyPrefix: { type: 'string', minLength: 1 },
    executeOnly: { enum: ['required', 'optional'] },
    apiValues: stringMap,
    decode: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'schema'],
          properties: { kind: { const: 'json' }, schema: schemaObject },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'separator'],
          properties: { kind: { const: 'split' }, separator: { type: 'string', minLength: 1 } },
        },
      ],
    },
    sendEmptyArray: { type: 'boolean' },
    sendDefault: { type: 'boolean' },
    dynamicDefault: { enum: ['today'] },
    fromSetting: { type: 'string', minLength: 1 },
  },
} as const;

export const TOOL_VOCABULARY = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'method', 'path', 'auth'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]*$' },
    description: { type: 'string', minLength: 1 },
    method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    path: { type: 'string', pattern: '^/' },
    server: { type: 'string', minLength: 1 },
    params: { type: 'array', items: PARAM_VOCABULARY },
    body: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind'],
          properties: { kind: { const: 'fields' }, contentType: { type: 'string' }, limits: bodyLimits },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'schema'],
          properties: {
            kind: { const: 'mode' },
            schema: schemaObject,
            contentType: { type: 'string' },
            limits: bodyLimits,
          },
        },
      ],
    },
    auth: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'provider', 'scopes'],
          properties: {
            kind: { const: 'provider' },
            provider: { type: 'string', minLength: 1 },
            scopes: { type: 'array', items: { type: 'string' } },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'secret', 'scheme'],
          properties: {
            kind: { const: 'secret' },
            secret: { type: 'string', minLength: 1 },
            scheme: { enum: ['basic-username', 'bearer'] },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['kind'],
          properties: { kind: { const: 'none' } },
        },
      ],
    },
    requiresAnyOf: {
      type: 'array',
      items: { type: 'array', minItems: 1, items: { type: 'string' } },
    },
    dependentRequired: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    hints: {
      type: 'object',
      additionalProperties: false,
      properties: {
        readOnly: { type: 'boolean' },
        destructive: { type: 'boolean' },
        idempotent: { type: 'boolean' },
        openWorld: { type: 'boolean' },
      },
    },
  },
} as const;

const positive = { type: 'number', exclusiveMinimum: 0 } as const;

/** A registered tool set, with the declarations above. */
export const TOOL_SET_VOCABULARY = {
  type: 'object',
  additionalProperties: false,
  required: ['contractVersion', 'toolSet', 'plugin', 'servers', 'tools'],
  properties: {
    contractVersion: { type: 'string', pattern: '^\\d+\\.\\d+$' },
    toolSet: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]*$' },
    vendor: { type: 'string', minLength: 1 },
    plugin: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'version'],
      properties: { name: { type: 'string' }, version: { type: 'string' } },
    },
    servers: { ...stringMap, required: ['default'] },
    tools: { type: 'array', items: TOOL_VOCABULARY },
    traffic: {
      type: 'object',
      additionalProperties: false,
      properties: {
        pacing: {
          oneOf: [
            {
              type: 'object',
              additionalProperties: false,
              required: ['key', 'requestsPerSecond'],
              properties: { key: { type: 'string' }, requestsPerSecond: positive },
            },
            {
              type: 'object',
              additionalProperties: false,
              required: ['per', 'requestsPerSecond'],
              properties: { per: { const: 'connection' }, requestsPerSecond: positive },
            },
          ],
        },
        retryOnRateLimit: {
          type: 'object',
          additionalProperties: false,
          required: ['defaultWaitSeconds', 'maxWaitSeconds'],
          properties: {
            defaultWaitSeconds: { type: 'number', minimum: 0 },
            maxWaitSeconds: { type: 'number', minimum: 0 },
          },
        },
      },
    },
    oauth: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['authorizeUrl', 'tokenUrl'],
        properties: {
          authorizeUrl: { type: 'string' },
          tokenUrl: { type: 'string' },
          clientAuth: { enum: ['basic', 'post'] },
          revokeUrl: { type: 'string' },
          account: {
            type: 'object',
            additionalProperties: false,
            required: ['via', 'url', 'fields'],
            properties: {
              via: { enum: ['bearer', 'introspection'] },
              url: { type: 'string' },
              fields: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
            },
          },
        },
      },
    },
    settingValues: { type: 'object' },
    skill: { type: 'string', pattern: '^file:' },
    pastRequests: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['request', 'tools'],
        properties: {
          request: { type: 'string', minLength: 1 },
          tools: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
          source: { type: 'string' },
        },
      },
    },
  },
} as const;
