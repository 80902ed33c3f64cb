import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stderr (stdout belongs to the stdio transport). Credentials never
 * reach a log call, and the redaction paths catch them should a header object slip in.
 */
export function createLogger(
  level: string = process.env.TOOLHOST_LOG_LEVEL ?? 'info',
  // Asynchronous, so a log line adds no system call to a tool call's path; pino flushes what
  // is pending when the process exits.
  destination: pino.DestinationStream = pino.destination({ fd: 2, sync: false }),
): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'authorization',
          'token',
          'secret',
          'accessToken',
          'refreshToken',
          '*.authorization',
          '*.headers.authorization',
          '*.token',
          '*.secret',
          '*.accessToken',
          '*.refreshToken',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
