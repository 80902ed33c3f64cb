import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The per-request bookkeeping of the SDK 1.x transport (private fields). */
interface SdkRequestState {
  _streamMapping: Map<string, { resolveJson?: unknown; cleanup(): void }>;
  _requestToStreamMapping: Map<unknown, string>;
}

/**
 * In JSON-response mode the MCP SDK 1.x transport answers a POST but never releases its
 * stream entry (typescript-sdk#2559): one entry, about 5 kB with what it holds, per call for
 * the life of the session. The SDK's SSE mode releases it, but costs each call a stream, a
 * keep-alive timer and more writes: on a loaded machine, up to 40% of throughput.
 *
 * This returns a function to call once a POST has been answered: it runs the SDK's own
 * cleanup for every JSON entry none of whose requests still waits for its answer. It needs
 * the SDK's private fields; where they are not there (another SDK version), it returns
 * undefined, and the caller uses SSE mode instead, so an upgrade can cost speed but never
 * leak. test/http-memory.test.ts checks that these maps are empty after calls.
 */
export function jsonResponseRelease(transport: StreamableHTTPServerTransport): (() => void) | undefined {
  const state = (transport as unknown as { _webStandardTransport?: Partial<SdkRequestState> })
    ._webStandardTransport;
  const streams = state?._streamMapping;
  const requests = state?._requestToStreamMapping;
  if (!(streams instanceof Map) || !(requests instanceof Map)) return undefined;
  return () => {
    if (streams.size === 0) return;
    const waiting = new Set(requests.values());
    for (const [id, stream] of streams) if (stream.resolveJson && !waiting.has(id)) stream.cleanup();
  };
}

/**
 * A session's transport: JSON answers with the release above where it works, else SSE. A
 * session that must put requests of its own inside a call's answer (the confirmation of a
 * write, asked with elicitation) needs SSE: in JSON mode the SDK drops them.
 */
export function sessionTransport(
  options: StreamableHTTPServerTransportOptions,
  needs: { stream?: boolean } = {},
): {
  transport: StreamableHTTPServerTransport;
  release?: () => void;
} {
  if (needs.stream)
    return { transport: new StreamableHTTPServerTransport({ ...options, enableJsonResponse: false }) };
  const json = new StreamableHTTPServerTransport({ ...options, enableJsonResponse: true });
  const release = jsonResponseRelease(json);
  if (release) return { transport: json, release };
  return { transport: new StreamableHTTPServerTransport({ ...options, enableJsonResponse: false }) };
}
