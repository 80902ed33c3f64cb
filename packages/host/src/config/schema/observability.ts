/** `audit`: the audit log. */
export const auditSection = {
  type: 'object',
  additionalProperties: false,
  description:
    'An audit log: one JSON line per tool call and per refused request (time, replica, user, client, tool, outcome, upstream status), apart from the diagnostic logs.',
  properties: {
    log: {
      type: 'string',
      minLength: 1,
      description:
        '`stdout` (not with the stdio transport), or a file appended to, relative to the config file. Unset: no audit log.',
      'x-env': 'TOOLHOST_AUDIT_LOG',
    },
    includeArguments: {
      type: 'boolean',
      description: "Also write each call's arguments, which may hold personal data.",
      default: false,
    },
  },
} as const;

/** `telemetry`: OpenTelemetry. */
export const telemetrySection = {
  type: 'object',
  additionalProperties: false,
  description: 'Traces and metrics.',
  properties: {
    userIdKey: {
      type: 'string',
      minLength: 16,
      description:
        'The secret user ids in traces are hashed under (HMAC-SHA256); by default derived from TOOLHOST_TOKEN_KEY, else random per process.',
      'x-env': 'TOOLHOST_TELEMETRY_KEY',
    },
  },
} as const;

/** `logging`. */
export const loggingSection = {
  type: 'object',
  additionalProperties: false,
  description: 'Logs (JSON lines on stderr; pretty on a terminal).',
  properties: {
    level: {
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      description: 'Least severe level written.',
      default: 'info',
      'x-env': 'TOOLHOST_LOG_LEVEL',
      'x-flag': '--log-level',
    },
  },
} as const;
