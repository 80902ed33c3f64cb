import {
  type Attributes,
  metrics,
  context as otelContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { CallContext, ToolOutcome } from '@toolhost/core';
import type { RefreshOutcome } from '@toolhost/credentials';
import type { RateLimitWaitKind } from '@toolhost/engine';
import { Counter, Histogram, Registry } from 'prom-client';

type CounterChild = ReturnType<Counter['labels']>;
type HistogramChild = ReturnType<Histogram['labels']>;
type ToolChildren = Record<Outcome, CounterChild> & { duration: HistogramChild };

import { hashUserId } from './hash-user-id.js';

const SCOPE = '@toolhost/host';
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What one call has gathered for its span while the engine ran it. */
interface CallRecord {
  span: Span;
  upstreamMs: number;
  attempts: number;
  status?: number;
  waitMs: number;
}

/** A call in progress, as the call lifecycle holds it. */
export interface CallTrace {
  /** Runs `fn` (the engine's call) with the span active, so that HTTP client spans nest in it. */
  run<T>(fn: () => T): T;
  end(outcome: ToolOutcome, durationMs: number): void;
}

type Outcome = 'ok' | 'error';

/**
 * Every instrument the host records: OpenTelemetry spans and counters through
 * `@opentelemetry/api` (no-ops until the operator registers an SDK), and the same counts in
 * a prom-client registry of the host's own, which `/metrics` serves without any SDK.
 *
 * prom-client rather than the OpenTelemetry Prometheus exporter: the exporter needs the
 * metrics SDK in the host's dependencies and a MeterProvider of the host's own beside the
 * operator's; prom-client is a small, long-kept library whose registry is ours alone (never
 * the global default one, so that two hosts in one process, or the embedder's metrics, never
 * mix).
 */
export class CallInstruments {
  readonly registry = new Registry();
  private readonly tracer = trace.getTracer(SCOPE);
  private readonly records = new WeakMap<CallContext, CallRecord>();
  private readonly prom = prometheusInstruments(this.registry);
  private readonly otel = otelInstruments();
  /** Label children per tool, so a call does not hash its label values again. */
  private readonly perTool = new Map<string, ToolChildren>();
  /** The upstream-duration child per tool set, for the same reason. */
  private readonly perToolSet = new Map<string, HistogramChild>();

  /** `userIdKey`: the secret that user ids are hashed under (see hash-user-id.ts). */
  constructor(private readonly userIdKey: Buffer) {}

  /** Opens the call's span; the engine's reports about `call` land on it. */
  startCall(tool: string, toolSet: string, userId: string, call: CallContext): CallTrace {
    const span = this.tracer.startSpan(`execute_tool ${tool}`, { kind: SpanKind.INTERNAL });
    if (span.isRecording()) {
      span.setAttributes({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'toolhost.tool': tool,
        'toolhost.tool_set': toolSet,
        'enduser.id': hashUserId(userId, this.userIdKey),
      });
      this.records.set(call, { span, upstreamMs: 0, attempts: 0, waitMs: 0 });
    }
    const spanContext = trace.setSpan(otelContext.active(), span);
    return {
      run: (fn) => otelContext.with(spanContext, fn),
      end: (outcome, durationMs) => this.endCall(tool, toolSet, call, span, outcome, durationMs),
    };
  }

  private endCall(
    tool: string,
    toolSet: string,
    call: CallContext,
    span: Span,
    outcome: ToolOutcome,
    durationMs: number,
  ): void {
    const kind: Outcome = outcome.ok ? 'ok' : 'error';
    const children = this.children(tool, toolSet);
    children[kind].inc();
    children.duration.observe(durationMs / 1000);
    const attributes: Attributes = { 'toolhost.tool_set': toolSet, 'toolhost.outcome': kind };
    this.otel.calls.add(1, { ...attributes, 'toolhost.tool': tool });
    this.otel.duration.record(durationMs / 1000, attributes);
    if (!outcome.ok) {
      this.prom.errors.labels(toolSet, outcome.error.code).inc();
      this.otel.errors.add(1, { 'toolhost.tool_set': toolSet, 'toolhost.error_code': outcome.error.code });
    }
    const record = this.records.get(call);
    if (!record) {
      span.end();
      return;
    }
    this.records.delete(call);
    span.setAttribute('toolhost.outcome', kind);
    const status = outcome.ok
      ? outcome.kind === 'response'
        ? outcome.status
        : undefined
      : outcome.error.status;
    if (status ?? record.status) span.setAttribute('http.response.status_code', (status ?? record.status)!);
    if (record.attempts > 0) {
      span.setAttribute('toolhost.upstream.duration_ms', Math.round(record.upstreamMs * 10) / 10);
      span.setAttribute('toolhost.upstream.attempts', record.attempts);
    }
    if (record.waitMs > 0) span.setAttribute('toolhost.rate_limit.wait_ms', Math.round(record.waitMs));
    if (!outcome.ok) {
      span.setAttributes({ 'toolhost.error_code': outcome.error.code, 'error.type': outcome.error.code });
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.code });
    }
    span.end();
  }

  private children(tool: string, toolSet: string): ToolChildren {
    let children = this.perTool.get(tool);
    if (!children) {
      children = {
        ok: this.prom.calls.labels(toolSet, tool, 'ok'),
        error: this.prom.calls.labels(toolSet, tool, 'error'),
        duration: this.prom.duration.labels(toolSet),
      };
      this.perTool.set(tool, children);
    }
    return children;
  }

  upstreamResponse(call: CallContext, toolSet: string, status: number, durationMs: number): void {
    let upstream = this.perToolSet.get(toolSet);
    if (!upstream) {
      upstream = this.prom.upstream.labels(toolSet);
      this.perToolSet.set(toolSet, upstream);
    }
    upstream.observe(durationMs / 1000);
    this.otel.upstream.record(durationMs / 1000, {
      'toolhost.tool_set': toolSet,
      'http.response.status_code': status,
    });
    const record = this.records.get(call);
    if (!record) return;
    record.attempts += 1;
    record.upstreamMs += durationMs;
    record.status = status;
  }

  rateLimitWait(call: CallContext, toolSet: string, kind: RateLimitWaitKind, waitMs: number): void {
    this.prom.waits.labels(toolSet, kind).inc();
    this.prom.waitSeconds.labels(toolSet, kind).inc(waitMs / 1000);
    const attributes = { 'toolhost.tool_set': toolSet, 'toolhost.rate_limit.kind': kind };
    this.otel.waits.add(1, attributes);
    this.otel.waitSeconds.add(waitMs / 1000, attributes);
    const record = this.records.get(call);
    if (record) record.waitMs += waitMs;
  }

  tokenRefresh(provider: string, outcome: RefreshOutcome): void {
    this.prom.refreshes.labels(provider, outcome).inc();
    this.otel.refreshes.add(1, { 'toolhost.auth.provider': provider, 'toolhost.outcome': outcome });
  }
}

/** The Prometheus side of each instrument, in the host's own registry (served at /metrics). */
function prometheusInstruments(registry: Registry) {
  const registers = [registry];
  return {
    calls: new Counter({
      name: 'toolhost_tool_calls_total',
      help: 'Tool calls answered, by tool set, tool and outcome (ok or error).',
      labelNames: ['tool_set', 'tool', 'outcome'],
      registers,
    }),
    errors: new Counter({
      name: 'toolhost_tool_errors_total',
      help: 'Tool calls that failed, by tool set and error code.',
      labelNames: ['tool_set', 'code'],
      registers,
    }),
    duration: new Histogram({
      name: 'toolhost_tool_call_duration_seconds',
      help: 'Time from a call reaching the host to its outcome, by tool set.',
      labelNames: ['tool_set'],
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    upstream: new Histogram({
      name: 'toolhost_upstream_request_duration_seconds',
      help: 'Time an upstream took to answer one request (each attempt), by tool set.',
      labelNames: ['tool_set'],
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    waits: new Counter({
      name: 'toolhost_rate_limit_waits_total',
      help: 'Requests held back by rate limits: kind "pacing" (the tool set\'s pacing) or "retry_after" (an upstream\'s 429).',
      labelNames: ['tool_set', 'kind'],
      registers,
    }),
    waitSeconds: new Counter({
      name: 'toolhost_rate_limit_wait_seconds_total',
      help: 'Time requests spent held back by rate limits, by tool set and kind.',
      labelNames: ['tool_set', 'kind'],
      registers,
    }),
    refreshes: new Counter({
      name: 'toolhost_token_refreshes_total',
      help: 'OAuth access-token refreshes, by provider and outcome (ok, reauthorize, failed, unanswered).',
      labelNames: ['provider', 'outcome'],
      registers,
    }),
  };
}

/** The OpenTelemetry side of each instrument: no-ops unless the operator installs an SDK. */
function otelInstruments() {
  const meter = metrics.getMeter(SCOPE);
  return {
    calls: meter.createCounter('toolhost.tool.calls', { description: 'Tool calls answered.' }),
    errors: meter.createCounter('toolhost.tool.errors', {
      description: 'Tool calls that failed, by error code.',
    }),
    duration: meter.createHistogram('toolhost.tool.call.duration', {
      unit: 's',
      description: 'Tool call duration.',
    }),
    upstream: meter.createHistogram('toolhost.upstream.request.duration', {
      unit: 's',
      description: 'Upstream request duration, per attempt.',
    }),
    waits: meter.createCounter('toolhost.rate_limit.waits', {
      description: 'Requests held back by rate limits.',
    }),
    waitSeconds: meter.createCounter('toolhost.rate_limit.wait.duration', {
      unit: 's',
      description: 'Time requests spent held back by rate limits.',
    }),
    refreshes: meter.createCounter('toolhost.token.refreshes', {
      description: 'OAuth access-token refreshes.',
    }),
  };
}
