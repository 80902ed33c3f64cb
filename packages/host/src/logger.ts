import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import type Pino from 'pino';
import type { Logger } from 'pino';
import { redactCredentials } from './log-redaction.js';

export type { Logger };

const require = createRequire(import.meta.url);
// Required, not imported: see docs/performance.md, "CommonJS packages at start".
const pino = require('pino') as typeof Pino;

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Where log lines go: readable, coloured lines in local time when stderr is a terminal (a
 * person is reading); JSON lines otherwise (a log collector is). TOOLHOST_LOG_FORMAT=json or
 * pretty decides instead. pino-pretty loads only when used.
 */
function defaultDestination(): Pino.DestinationStream {
  const format = process.env.TOOLHOST_LOG_FORMAT;
  if (format === 'pretty' || (format !== 'json' && process.stderr.isTTY)) {
    const pretty = require('pino-pretty') as (options: object) => Pino.DestinationStream;
    return pretty({
      destination: 2,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      // One line per event (a tool call is one line, not one per field) for a person reading.
      singleLine: true,
      // A call's `error` is its code, a word: inline, not printed as an error object below.
      errorLikeObjectKeys: ['err'],
    });
  }
  // Written with one plain write() per turn of the event loop, from this thread. Asynchronous
  // writes went through libuv's thread pool: a hand-off to a worker and a wake-up back for
  // every turn, which cost a call at low concurrency more CPU than the write itself (a few
  // hundred µs against a few). stderr is written synchronously by Node itself on Linux too.
  stderrLines ??= turnBatched(pino.destination({ fd: 2, sync: true, minLength: BATCH_BYTES }));
  return stderrLines;
}

/** One batched destination on stderr for every logger of the process, flushed at exit. */
let stderrLines: Pino.DestinationStream | undefined;

/** Lines held back at most one turn of the event loop, up to this many bytes. */
const BATCH_BYTES = 8 * 1024;

/**
 * Writes the lines of one turn of the event loop together: under concurrent calls, one write
 * for the turn's lines instead of one per call. The destination holds lines up to its
 * `minLength`; a flush at the end of the turn sends them, so a line is never held longer
 * than that turn.
 */
function turnBatched(destination: SonicBoom): Pino.DestinationStream {
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    try {
      destination.flush();
    } catch {
      // Ended (at exit, after pino's own final flush): nothing left to write.
    }
  };
  // pino flushes only asynchronous destinations at exit itself; lines of the last turn would
  // otherwise stay held.
  process.once('exit', flush);
  return {
    write(line: string) {
      destination.write(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush: (cb?: (err?: Error) => void) => destination.flush(cb),
  } as Pino.DestinationStream;
}

/**
 * Which replica a log line comes from: TOOLHOST_REPLICA_ID (e.g. the pod's name), else this
 * machine's name and process id.
 */
export function replicaId(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.TOOLHOST_REPLICA_ID || `${hostname()}:${process.pid}`;
}

/**
 * Structured logs on stderr (stdout belongs to the stdio transport). Credentials never reach a
 * log call, and redaction catches them should a header object slip in (log-redaction.ts).
 */
export function createLogger(
  level: string = process.env.TOOLHOST_LOG_LEVEL ?? 'info',
  destination: Pino.DestinationStream = defaultDestination(),
  /** Fields of every line (the replica's id, where several share a store). */
  fields?: Record<string, unknown>,
): Logger {
  return pino(
    {
      level,
      base: fields ?? undefined,
      formatters: { log: (fields) => redactCredentials(fields) as Record<string, unknown> },
      // An error's own properties (an HTTP client's error carries the request's headers).
      serializers: { err: (e: Error) => redactCredentials(pino.stdSerializers.err(e)) },
    },
    destination,
  );
}
