import { cancelledRequestOf, isRequest } from '../mcp/jsonrpc-messages.js';
import { REVISION_SERVER_METHODS } from '../mcp/protocol-eras.js';
import {
  type JSONRPCMessage,
  PerRequestHTTPServerTransport,
  type RequestId,
  type Server,
} from '../mcp/sdk.js';
import type { StdioWire } from './stdio-wire.js';

/**
 * The stdio connection of a server bound to a 2026-07-28 revision. It is the SDK's
 * per-request transport by kind only: connecting a server to one binds the server to the
 * revision it names, the SDK's public way to serve 2026-07-28 outside its own entries (the
 * HTTP endpoint's revision servers are bound the same way). It carries every request of the
 * connection it is given, writing the server's messages to the wire as they are.
 */
class RevisionBoundTransport extends PerRequestHTTPServerTransport {
  constructor(
    revision: string,
    private readonly wire: StdioWire,
    private readonly answered: (id: RequestId) => void,
  ) {
    super({ classification: { era: 'modern', revision } });
  }

  override async start(): Promise<void> {}

  override handleMessage(): Promise<Response> {
    return Promise.reject(new Error('A stdio connection is given its requests with deliver()'));
  }

  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }

  // The server's own messages, well formed by construction: an answer is told by its shape.
  override send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message))
      this.answered(message.id);
    return this.wire.send(message);
  }

  // Comment frames keep an HTTP event stream open; a pipe needs none.
  override writeCommentFrame(): void {}

  override async close(): Promise<void> {
    this.onclose?.();
  }
}

/**
 * The 2026-07-28 requests a stdio client sends again and again (`tools/call`, `tools/list`),
 * answered by one server of the connection, bound to the revision the SDK's entry pinned,
 * rather than through that entry.
 *
 * The SDK's entry hands each message of a pinned connection to its server through a queue, a
 * pump and a channel that check its shape with zod several times more (on the bench, a new-era
 * call over stdio cost a fifth more CPU than a session-era one). Its server answers a
 * `tools/call` exactly as this one does: both are the host's servers, bound to the same
 * revision, and every request of that revision stands alone (its client, capabilities and log
 * level come in its own `_meta`).
 * Everything else (`server/discover`, subscriptions, stored results, a late `initialize`)
 * still goes through the entry, which answers it in the SDK's own words.
 */
export class RepeatedRequests {
  private readonly transport: RevisionBoundTransport;
  private readonly inFlight = new Set<RequestId>();
  /** Messages that came while the server was connecting, in order. */
  private waiting: JSONRPCMessage[] | undefined = [];

  constructor(
    private readonly server: Server,
    revision: string,
    wire: StdioWire,
    onerror: (error: Error) => void,
  ) {
    this.transport = new RevisionBoundTransport(revision, wire, (id) => this.inFlight.delete(id));
    server.connect(this.transport).then(
      () => {
        const waiting = this.waiting ?? [];
        this.waiting = undefined;
        for (const message of waiting) this.transport.deliver(message);
      },
      (e: unknown) => onerror(e instanceof Error ? e : new Error(String(e))),
    );
  }

  /**
   * Takes the message if it is this server's: a request of a method it answers, or the
   * cancellation of a request it is answering (2026-07-28 over stdio cancels by notification).
   */
  take(message: JSONRPCMessage): boolean {
    if (isRequest(message)) {
      if (!REVISION_SERVER_METHODS.has(message.method)) return false;
      this.inFlight.add(message.id);
    } else {
      const cancelled = cancelledRequestOf(message);
      if (cancelled === undefined || !this.inFlight.has(cancelled)) return false;
    }
    if (this.waiting) this.waiting.push(message);
    else this.transport.deliver(message);
    return true;
  }

  async close(): Promise<void> {
    await this.server.close().catch(() => {});
  }
}
