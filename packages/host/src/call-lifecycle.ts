import type { CallContext, CallSignal, ToolOutcome } from '@toolhost/core';
import type { DispatchResult, ToolEngine } from '@toolhost/engine';
import { type CallWaitObserver, callWaitListener } from './call-waits.js';
import type { Logger } from './logger.js';
import type { HostTelemetry } from './observability/host-telemetry.js';

/** The instruments of a host whose traces and metrics nobody reads: nothing recorded. */
const NO_TRACE = { run: <T>(fn: () => T): T => fn(), end: () => {} };
const UNTRACED = { startCall: () => NO_TRACE };

/** What a call (or preview) started once close() has begun answers. */
export const SHUTTING_DOWN: ToolOutcome = {
  ok: false,
  error: { code: 'cancelled', message: 'The host is shutting down.', retryable: true },
};

/**
 * The life of each call after assembly: its own abort signal (cancelled by the caller's or by
 * shutdown), its span and counts, one log line with its outcome, and the in-flight set that
 * shutdown waits for.
 */
export class CallLifecycle {
  private readonly inFlight = new Set<{ controller: AbortController; call: Promise<unknown> }>();
  private closing = false;
  private counter = 0;

  constructor(
    private readonly engine: ToolEngine,
    private readonly log: Logger | undefined,
    private readonly telemetry: HostTelemetry,
  ) {}

  /** Runs one call of a known tool for a user; `onWait` hears of the waits it goes through. */
  async run(
    name: string,
    args: unknown,
    userId: string,
    signal?: CallSignal,
    onWait?: CallWaitObserver,
  ): Promise<ToolOutcome> {
    return (await this.within(name, userId, signal, (context) => this.callOnce(name, args, context), onWait))
      .outcome;
  }

  /** Prepares and sends one call, telling whether it may have reached the upstream. */
  callOnce(name: string, args: unknown, context: CallContext): Promise<DispatchResult> {
    const prepared = this.engine.prepare(name, args);
    if (prepared.kind === 'outcome')
      return Promise.resolve({ outcome: prepared.outcome, reachedUpstream: false });
    return this.engine.dispatch(prepared.request, context);
  }

  /**
   * Runs `step` as one call of `name` for a user: with its own signal, in the in-flight set,
   * logged once. Write safety runs its preview, confirmation and send through here, so that a
   * person's pending confirmation is cancelled by shutdown like any call.
   */
  async within(
    name: string,
    userId: string,
    signal: CallSignal | undefined,
    step: (context: CallContext & { signal: AbortSignal }) => Promise<DispatchResult>,
    onWait?: CallWaitObserver,
  ): Promise<DispatchResult> {
    if (this.closing) return { outcome: SHUTTING_DOWN, reachedUpstream: false };
    // The call's own signal, aborted by the caller's (the MCP request's) or by close().
    // A forwarding listener instead of AbortSignal.any: cheaper, and nothing outlives the call.
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener('abort', forward, { once: true });
    const instruments =
      this.telemetry.loaded ?? (this.telemetry.wanted ? await this.telemetry.load() : UNTRACED);
    const started = performance.now();
    this.counter += 1;
    const callId = this.counter;
    const toolSet = this.engine.registry.get(name)?.toolSet ?? '';
    const waits = callWaitListener(this.log, { id: callId, tool: name, toolSet }, onWait);
    const context: CallContext & { signal: AbortSignal } = waits
      ? { userId, signal: controller.signal, onWait: waits }
      : { userId, signal: controller.signal };
    const trace = instruments.startCall(name, toolSet, userId, context);
    const call = trace.run(() => step(context));
    const entry = { controller, call };
    this.inFlight.add(entry);
    try {
      const result = await call;
      trace.end(result.outcome, performance.now() - started);
      if (this.log) this.logCall(callId, name, userId, started, result.outcome);
      return result;
    } finally {
      signal?.removeEventListener('abort', forward);
      this.inFlight.delete(entry);
    }
  }

  private logCall(callId: number, tool: string, user: string, started: number, outcome: ToolOutcome): void {
    const line: Record<string, unknown> = {
      call: callId,
      tool,
      user,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (outcome.ok) {
      if (outcome.kind === 'response') line.status = outcome.status;
      else line.mode = 'schema';
    } else {
      line.error = outcome.error.code;
      if (outcome.error.status !== undefined) line.status = outcome.error.status;
    }
    // Written once the answer is on its way: formatting the line is then not part of the
    // call's latency. The lines of one turn of the event loop go out together, after it.
    this.unlogged.push({ line, ok: outcome.ok });
    if (this.unlogged.length === 1) setImmediate(this.writeLogLines);
  }

  /** Lines of calls that ended this turn, written at its end (one timer for all of them). */
  private unlogged: { line: Record<string, unknown>; ok: boolean }[] = [];

  // A failed call is a warning: it is what a person reading the log at the default level looks for.
  private readonly writeLogLines = () => {
    const lines = this.unlogged;
    this.unlogged = [];
    for (const { line, ok } of lines) {
      if (ok) this.log?.info(line, 'tool call');
      else this.log?.warn(line, 'tool call failed');
    }
  };

  /** Whether close() has begun: nothing new is taken. */
  get stopped(): boolean {
    return this.closing;
  }

  /** Stops taking calls; in-flight ones get `graceMs` to finish, then are cancelled. */
  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    await this.settle(graceMs);
    // An embedder may exit as soon as close resolves: the lines of the calls that ended this
    // turn would be lost with the timer that was to write them.
    this.writeLogLines();
  }

  private async settle(graceMs: number): Promise<void> {
    const pending = [...this.inFlight];
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled(pending.map((p) => p.call)), deadline]);
    clearTimeout(timer);
    for (const p of this.inFlight) p.controller.abort(new Error('host shutting down'));
    await Promise.allSettled([...this.inFlight].map((p) => p.call));
  }
}
