import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';

export type { Logger };

const require = createRequire(import.meta.url);

/**
 * Where log lines go: readable, coloured lines in local time when stderr is a terminal (a
 * person is reading); JSON lines otherwise (a log collector is). TOOLHOST_LOG_FORMAT=json or
 * pretty decides instead. pino-pretty loads only when used.
 */
function defaultDestination(): pino.DestinationStream {
  const format = process.env.TOOLHOST_LOG_FORMAT;
  if (format === 'pretty' || (format !== 'json' && process.stderr.isTTY)) {
    const pretty = require('pino-pretty') as (options: object) => pino.DestinationStream;
    return pretty({
      destination: 2,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
    });
  }
  // Asynchronous, so a log line adds no system call to a tool call's path; pino flushes what
  // is pending when the process exits.
  return pino.destination({ fd: 2, sync: false });
}

/**
 * Structured logs on stderr (stdout belongs to the stdio transport). Credentials never reach a
 * log call, and the redaction paths catch them should a header object slip in.
 */
export function createLogger(
  level: string = process.env.TOOLHOST_LOG_LEVEL ?? 'info',
  destination: pino.DestinationStream = defaultDestination(),
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
