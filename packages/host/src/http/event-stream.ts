import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '../mcp/sdk.js';

/** How often an open event stream gets a comment, so that proxies keep it (the SDK's interval). */
const KEEP_ALIVE_MS = 15_000;
/** Bytes a stream may hold for a client not reading it: past them progress and log lines are dropped. */
const MAX_HELD_BYTES = 2 ** 20;
/** What a client that stopped reading may miss: unlike a question withdrawn (cancelled), nothing it acts on. */
const DROPPABLE = new Set(['notifications/progress', 'notifications/message']);

const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** One JSON-RPC message as a server-sent event. */
export const eventFrame = (message: JSONRPCMessage): string =>
  `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * An HTTP response turned into an event stream, the one writer of the host's own: status 200
 * and its headers out at once, each message an event, a comment every 15 s while it is open so
 * that proxies do not time it out, the timer gone once the stream ends or the client leaves or has left.
 */
export class EventStream {
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(200, { ...EVENT_STREAM_HEADERS, ...headers });
    res.flushHeaders();
    this.keepAlive = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS).unref();
    if (res.closed) clearInterval(this.keepAlive);
    else res.once('close', () => clearInterval(this.keepAlive));
  }

  /**
   * All but progress and log lines always go: those, kept for a client not reading, grew without
   * bound. Whether it was written: not once the client left.
   */
  write(message: JSONRPCMessage): boolean {
    if (this.res.destroyed || this.res.writableEnded) return false;
    if ('method' in message && DROPPABLE.has(message.method) && this.res.writableLength > MAX_HELD_BYTES)
      return false;
    this.res.write(eventFrame(message));
    return true;
  }

  /** A comment (the SDK's keep-alive frames), each line of it marked as one. */
  comment(text: string): void {
    this.res.write(`: ${text.split('\n').join('\n: ')}\n\n`);
  }

  /** Ends the stream, with a last message if given. */
  end(last?: JSONRPCMessage): void {
    clearInterval(this.keepAlive);
    if (last) this.res.end(eventFrame(last));
    else if (!this.res.writableEnded) this.res.end();
  }
}

/**
 * Calls `left` once when the client goes before its answer is written (at once if gone while the
 * request waited: a revision server connecting): the one place that tells "the client left" from an
 * exchange that ended. A modern request is cancelled so (2026-07-28 closes the stream to cancel).
 */
export function onClientLeft(res: ServerResponse, left: () => void): void {
  if (res.closed && !res.writableFinished) return void left();
  res.once('close', () => {
    if (!res.writableFinished) left();
  });
}
