import { createInterface } from 'node:readline';

/** How long a client gets to send its first request before the refusal gives up waiting. */
const WAIT_FOR_CLIENT_MS = 10_000;

/**
 * A host that cannot start, told to the MCP client that launched it: its first request
 * (`initialize`) is answered with a JSON-RPC error carrying the message, so the client shows
 * "toolhost: <what is wrong>" rather than "Connection closed". Resolves once answered, or when
 * the client goes away or never asks.
 */
export function refuseOverStdio(message: string): Promise<void> {
  // A person at a terminal has read the message on stderr: there is no client to wait for.
  if (process.stdin.isTTY) return Promise.resolve();
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    const done = () => {
      clearTimeout(timer);
      lines.close();
      resolve();
    };
    const timer = setTimeout(done, WAIT_FOR_CLIENT_MS);
    lines.on('line', (line) => {
      let id: unknown;
      try {
        id = (JSON.parse(line) as { id?: unknown }).id;
      } catch {
        return;
      }
      // A notification has no id and gets no answer; the client's first request does.
      if (id === undefined || id === null) return;
      const answer = { jsonrpc: '2.0', id, error: { code: -32603, message: `toolhost: ${message}` } };
      process.stdout.write(`${JSON.stringify(answer)}\n`, done);
    });
    lines.on('close', done);
  });
}
