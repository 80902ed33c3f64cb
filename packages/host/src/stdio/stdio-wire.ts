import type { Readable, Writable } from 'node:stream';
import { errorAnswer, inUse, isMessage, tooMany } from '../mcp/jsonrpc-messages.js';
import type { JSONRPCMessage, Transport } from '../mcp/sdk.js';

const NOT_BLANK = /\S/;
const INVALID = 'Invalid Request: not a JSON-RPC 2.0 request, notification or answer.';

/**
 * The host's end of the stdio pipe: one JSON-RPC message per line in, one per line out, the
 * answers of one turn of the event loop written together.
 *
 * The host's own rather than the SDK's `StdioServerTransport` because the stdio entry reads
 * every message before any server does, to choose which one serves it (see serve-stdio.ts):
 * each line is parsed once, here, and handed to `route`; a server connected to this wire gets
 * it through `onmessage`. Lines are parsed and their envelope checked by hand (isMessage, as over
 * HTTP: the server drops a malformed one unanswered), not against the SDK's schema: its protocol
 * layer checks every message it is given (the SDK's reader checked each one a second time).
 *
 * Writes: a pipe on stdout is written synchronously, one system call per write. Under
 * concurrent calls many answers are ready in one turn of the loop; they are joined as they
 * come and written as one string once the turn's I/O callbacks have run (setImmediate): one
 * write of one buffer, which cost less than corking stdout and handing Node a `writev` of a
 * string per answer. Nothing waits longer than that turn. While stdout is over its mark, stdin
 * is not read, and past `maxUnanswered` a request is refused at once: what is held stays bounded.
 */
export class StdioWire implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /** The lines of this turn not yet written, joined; undefined when none are held. */
  private held: string | undefined;
  /** Set while stdout's buffer is over its mark: senders wait for it to drain. */
  private drained: Promise<void> | undefined;
  private closed = false;
  /** Ids of the requests read and not yet answered (a cancelled one never is): closing waits for them. */
  private readonly unanswered = new Set<unknown>();

  constructor(
    /** stdin split into whole lines (LineLimit), each within the size limit. */
    private readonly lines: Readable,
    private readonly stdout: Writable,
    /** Where each message read goes; the entry calls `deliver` for those a connected server takes. */
    private readonly route: (message: JSONRPCMessage) => void,
    private readonly maxUnanswered: number,
  ) {
    lines.on('data', this.onLine);
    lines.on('error', this.onReadError);
    lines.on('end', this.onEnd);
    lines.on('close', this.onEnd);
    stdout.on('error', this.onWriteError);
  }

  /** Reading began when the wire was made: the entry looks at the first message before any server exists. */
  async start(): Promise<void> {}

  /** Hands a message to the server connected to this wire. */
  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The stdio connection is closed'));
    return this.write(message);
  }

  /** Writes a message whatever server (if any) it comes from: the entry's own errors too. */
  write(message: JSONRPCMessage | object): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!('method' in message)) this.unanswered.delete((message as { id?: unknown }).id);
    const line = `${JSON.stringify(message)}\n`;
    if (this.held === undefined) {
      this.held = line;
      setImmediate(this.flush);
    } else this.held += line;
    // The reader is slower than the answers: senders wait, as with the SDK's transport.
    return this.drained ?? Promise.resolve();
  }

  /** Waits, at most `ms`, for each request read to be answered: a server closing drops what it has not sent. */
  async answered(ms: number): Promise<void> {
    const end = Date.now() + ms;
    // Closed (stdin ended), nothing more can be written: no answer to wait for.
    while (this.unanswered.size > 0 && !this.closed && Date.now() < end)
      await new Promise((r) => setTimeout(r, 10));
  }

  /** Writes what is held and stops reading; the host exits once nothing else keeps it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.lines.off('data', this.onLine);
    this.lines.off('error', this.onReadError);
    this.lines.off('end', this.onEnd);
    this.lines.off('close', this.onEnd);
    if (this.lines.listenerCount('data') === 0) this.lines.pause();
    // A write failing after this (the client gone) has nobody left to tell.
    this.stdout.off('error', this.onWriteError);
    this.stdout.on('error', () => {});
    this.onclose?.();
  }

  private readonly onLine = (line: Buffer) => {
    // JSON.parse takes the line's newline (and a \r before it) as the whitespace it is; a byte
    // order mark (PowerShell's pipes write one first) it does not, and the request went unanswered.
    const text = line.toString('utf8').replace(/^\uFEFF/, '');
    if (!NOT_BLANK.test(text)) return;
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(text) as JSONRPCMessage;
    } catch (e) {
      this.onerror?.(new Error(`A line on stdin is not JSON: ${(e as Error).message}`));
      return void this.write(errorAnswer(null, -32700, 'Parse error: the line is not JSON.'));
    }
    const m = message as { id?: unknown; method?: string; params?: { requestId?: unknown } };
    if (!isMessage(m)) {
      this.onerror?.(new Error(INVALID));
      // An answer is never answered: its id is one of the server's, an error under it another request's.
      if (typeof m.method === 'string' || !('result' in m || 'error' in m))
        void this.write(errorAnswer(this.unanswered.has(m.id) ? null : m.id, -32600, INVALID));
      return;
    }
    if (m.method === 'notifications/cancelled') this.unanswered.delete(m.params?.requestId);
    else if (m.method !== undefined && m.id !== undefined) {
      if (this.unanswered.has(m.id)) return void this.write(errorAnswer(null, -32600, inUse(m.id)));
      const max = this.maxUnanswered;
      if (this.unanswered.size >= max) return void this.write(errorAnswer(m.id, -32000, tooMany(max)));
      this.unanswered.add(m.id);
    }
    this.route(message);
  };

  private readonly flush = () => {
    const text = this.held;
    if (text === undefined) return;
    this.held = undefined;
    if (this.stdout.write(text) || this.drained) return;
    // A client that stops reading stdout while it writes requests would otherwise have every
    // answer held in memory: stdin is read again once stdout drains.
    this.lines.pause();
    this.drained = new Promise((resolve) =>
      this.stdout.once('drain', () => {
        this.drained = undefined;
        if (!this.closed) this.lines.resume();
        resolve();
      }),
    );
  };

  private readonly onReadError = (error: Error) => this.onerror?.(error);

  private readonly onWriteError = (error: Error) => {
    this.onerror?.(error);
    void this.close();
  };

  private readonly onEnd = () => void this.close();
}
