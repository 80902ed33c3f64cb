const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

/** JSON Schema of HostConfig; validated at load so that a typo names its key. */
export const hostConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    plugins: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
    toolSets: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          enabled: { type: 'boolean' },
          baseUrl: { type: 'string', format: 'uri' },
          baseUrls: { type: 'object', additionalProperties: { type: 'string', format: 'uri' } },
          settings: { type: 'object' },
          pacing: {
            oneOf: [
              { const: false },
              {
                type: 'object',
                additionalProperties: false,
                required: ['requestsPerSecond'],
                properties: { requestsPerSecond: { type: 'number', exclusiveMinimum: 0 } },
              },
            ],
          },
        },
      },
    },
    tools: {
      type: 'object',
      additionalProperties: false,
      properties: {
        toolSets: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
        allow: { type: 'array', items: { type: 'string' } },
        deny: { type: 'array', items: { type: 'string' } },
        readOnly: { type: 'boolean' },
        confirmWrites: { type: 'boolean' },
        previewTtlSeconds: { type: 'integer', minimum: 1, maximum: 86400 },
        idempotencyTtlSeconds: { type: 'integer', minimum: 1, maximum: 2592000 },
      },
    },
    auth: {
      type: 'object',
      additionalProperties: false,
      properties: {
        dataDir: { type: 'string' },
        providers: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            properties: {
              token: { type: 'string' },
              clientId: { type: 'string', minLength: 1 },
              clientSecret: { type: 'string' },
              redirectUri: { type: 'string', format: 'uri' },
              authorizeUrl: { type: 'string', format: 'uri' },
              tokenUrl: { type: 'string', format: 'uri' },
              revokeUrl: { type: 'string', format: 'uri' },
              clientAuth: { enum: ['basic', 'post'] },
              scopes: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
    secrets: stringMap,
    secretsFile: { type: 'string' },
    engine: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timeoutMs: { type: 'integer', minimum: 1 },
        maxResponseBytes: { type: 'integer', minimum: 1024 },
        maxConcurrentRequests: { type: 'integer', minimum: 1 },
        maxConcurrentRequestsPerUpstream: { type: 'integer', minimum: 1 },
        maxRateLimitWaitSeconds: { type: 'number', minimum: 0 },
        retry: {
          type: 'object',
          additionalProperties: false,
          properties: {
            maxAttempts: { type: 'integer', minimum: 1, maximum: 10 },
            baseDelayMs: { type: 'integer', minimum: 0 },
            maxDelayMs: { type: 'integer', minimum: 0 },
          },
        },
      },
    },
    mcp: {
      type: 'object',
      additionalProperties: false,
      properties: {
        nameSeparator: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,3}$' },
        catalog: { enum: ['static', 'dynamic'] },
        maxResultBytes: { type: 'integer', minimum: 4096 },
        resultTtlSeconds: { type: 'integer', minimum: 1 },
      },
    },
    http: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string' },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        path: { type: 'string', pattern: '^/' },
        publicUrl: { type: 'string', format: 'uri' },
        accessTokens: { type: 'object', additionalProperties: { type: 'string', minLength: 16 } },
        operators: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
        maxSessionsPerUser: { type: 'integer', minimum: 1 },
        maxSessions: { type: 'integer', minimum: 1 },
        sessionIdleSeconds: { type: 'integer', minimum: 1 },
        allowedOrigins: { type: 'array', items: { type: 'string' } },
        allowedHosts: { type: 'array', items: { type: 'string', minLength: 1 } },
        maxBodyBytes: { type: 'integer', minimum: 1024 },
      },
    },
    store: {
      type: 'object',
      additionalProperties: false,
      properties: { redisUrl: { type: 'string', pattern: '^rediss?://' } },
    },
    defaultUserId: { type: 'string', minLength: 1 },
    shutdownGraceSeconds: { type: 'number', minimum: 0 },
    logging: {
      type: 'object',
      additionalProperties: false,
      properties: { level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] } },
    },
  },
} as const;
