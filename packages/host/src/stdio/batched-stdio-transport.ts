import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, StdioServerTransport } from '../mcp/sdk.js';

/**
 * The SDK's stdio transport, with the answers of one turn of the event loop written together.
 * The SDK writes each message on its own, and a pipe on stdout is written synchronously: one
 * system call per answer. Under concurrent calls, many upstream answers arrive in one turn of
 * the loop; corking stdout at the first message and uncorking it once the turn's I/O callbacks
 * have run (setImmediate) sends them in one `writev`. Nothing waits longer than that turn.
 */
export class BatchedStdioServerTransport extends StdioServerTransport {
  private corked = false;
  private readonly out: Writable;

  constructor(stdin: Readable, stdout: Writable, options?: { maxBufferSize?: number }) {
    super(stdin, stdout, options);
    this.out = stdout;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (!this.corked) {
      this.corked = true;
      this.out.cork();
      setImmediate(this.uncork);
    }
    return super.send(message);
  }

  /** Writes what is held before closing: the host exits right after, with answers of in-flight calls perhaps still corked. */
  override async close(): Promise<void> {
    this.uncork();
    await super.close();
  }

  private readonly uncork = () => {
    if (!this.corked) return;
    this.corked = false;
    this.out.uncork();
  };
}
