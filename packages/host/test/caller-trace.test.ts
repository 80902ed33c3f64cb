import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { fixtureApp, postModernCall } from './support.js';

// A caller's `traceparent` in a request's `_meta` continues its trace in the host's spans, on
// either era. The operator's OpenTelemetry SDK, as NodeSDK registers it by default: a tracer,
// the W3C propagator and an async context manager.
const spans = new InMemorySpanExporter();
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const traceparent = `00-${TRACE_ID}-${PARENT_ID}-01`;
let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
  upstream = await startRecordingUpstream(async (req) => ({ status: 200, body: { path: req.path } }));
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await host.close();
  await upstream.close();
  // The next file in this worker starts without an operator's SDK, as a fresh process would.
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => spans.reset());

/** The host's span for the call of `tool`. */
const callSpan = () => spans.getFinishedSpans().find((s) => s.name.startsWith('execute_tool'));

describe("the caller's trace (traceparent in _meta)", () => {
  it('continues it for a 2026-07-28 request', async () => {
    const res = await postModernCall(server.url, {
      name: 'EchoApi_GetItem',
      args: { item_id: 't1' },
      meta: { traceparent },
    });
    expect(res.status).toBe(200);
    await res.text();
    const span = callSpan();
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_ID);
  });

  it('continues it for a call of a session, and starts a trace of its own without one', async () => {
    const client = new Client({ name: 'session', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 't2' }, _meta: { traceparent } });
    expect(callSpan()?.spanContext().traceId).toBe(TRACE_ID);
    spans.reset();
    await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 't3' } });
    expect(callSpan()?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(callSpan()?.parentSpanContext).toBeUndefined();
    await client.close();
  });
});
