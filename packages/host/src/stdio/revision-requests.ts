import { cancelledRequestOf, errorAnswer, isRequest, type JsonRpcId } from '../mcp/jsonrpc-messages.js';
import { REVISION_SERVER_METHODS } from '../mcp/protocol-eras.js';
import { type Delivery, RevisionServers } from '../mcp/revision-servers.js';
import type { JSONRPCMessage, JSONRPCRequest, Server } from '../mcp/sdk.js';
import type { StdioWire } from './stdio-wire.js';

/** A request on the revision server: its connection's id once handed over, or cancelled before. */
interface InFlight {
  abandon?: (reason: string) => void;
  cancelled?: string;
}

/**
 * The modern requests a stdio client sends again and again (`tools/call`, `tools/list`),
 * answered by the revision server of the revision the SDK's entry pinned (RevisionServers, as
 * over HTTP), rather than through that entry, which hands each message of a pinned connection
 * through a queue, a pump and a channel that check its shape with zod several times more (see
 * RevisionServers for the bench row). Both are the host's servers, bound to the same revision,
 * and every request of that revision stands alone (its client, capabilities and log level come
 * in its own `_meta`). Everything else (`server/discover`, subscriptions, stored results, a
 * late `initialize`) still goes through the entry, which answers it in the SDK's own words.
 */
export class RevisionRequests {
  private readonly servers: RevisionServers;
  private readonly inFlight = new Map<JsonRpcId, InFlight>();

  constructor(
    server: Server,
    private readonly revision: string,
    private readonly wire: StdioWire,
    private readonly onerror: (error: Error) => void,
  ) {
    // Messages related to no request are the server's own (none in 2026-07-28): on the pipe as they come.
    this.servers = new RevisionServers(
      () => server,
      (message) => wire.send(message),
    );
  }

  /**
   * Takes the message if it is the revision server's: a request of a method it answers, or the
   * cancellation of a request it is answering (2026-07-28 over stdio cancels by notification).
   */
  take(message: JSONRPCMessage): boolean {
    if (isRequest(message)) {
      if (!REVISION_SERVER_METHODS.has(message.method)) return false;
      this.serve(message as JSONRPCRequest);
      return true;
    }
    const cancelled = cancelledRequestOf(message);
    const flight = cancelled === undefined ? undefined : this.inFlight.get(cancelled);
    if (cancelled === undefined || !flight) return false;
    this.inFlight.delete(cancelled);
    const reason = (message as { params?: { reason?: unknown } }).params?.reason;
    const why = typeof reason === 'string' ? reason : 'The client cancelled the request.';
    if (flight.abandon) flight.abandon(why);
    else flight.cancelled = why;
    return true;
  }

  async close(): Promise<void> {
    await this.servers.close();
  }

  /** Hands the request over once the server is connected, in the order requests came. */
  private serve(message: JSONRPCRequest): void {
    const flight: InFlight = {};
    this.inFlight.set(message.id, flight);
    const answer = (m: JSONRPCMessage) => {
      if (this.inFlight.get(message.id) === flight) this.inFlight.delete(message.id);
      return this.wire.send(m);
    };
    const delivery: Delivery = {
      answer,
      notify: (notification) => this.wire.send(notification),
      // A cancelled request is not answered (as the SDK's server does); a closed pipe takes nothing.
      end: () => {},
    };
    this.servers.connectionFor(this.revision).then(
      (connection) => {
        if (flight.cancelled !== undefined) return;
        const id = connection.serve(message, delivery);
        flight.abandon = (reason) => connection.abandon(id, reason);
      },
      (e: unknown) => {
        this.onerror(e instanceof Error ? e : new Error(String(e)));
        // The client waits for an answer whatever became of the server; the cause is in the log only.
        if (flight.cancelled === undefined)
          answer(errorAnswer(message.id, -32603, 'Internal error')).catch(() => {});
      },
    );
  }
}
