import type { ToolErrorInfo } from '@toolhost/core';
import { STATUS_META_KEY } from './render-outcome.js';
import type { CallToolResult, InputRequiredResult } from './sdk.js';

/** What the audit line of a call needs beyond its answer. */
export interface CallAudit {
  /** The plugin tool run (for `call_tool`, the one it names). */
  tool?: string;
  /** The tool a `preview_tool_call` previewed. */
  target?: string;
  /** The person declined the write. */
  declined?: boolean;
  /** The error of a result that carries it as text only (search_tools: see its output schema). */
  error?: ToolErrorInfo;
}

/** A result's outcome for the audit log: `ok` or its error's code, and the upstream status. */
export function auditedOutcome(
  result: CallToolResult | InputRequiredResult,
  audit: CallAudit,
): { outcome: string; status?: number } {
  // 2026-07-28: the call ended to ask the client first (a confirmation, a sign-in).
  if (!Array.isArray((result as { content?: unknown }).content)) return { outcome: 'input_required' };
  const called = result as CallToolResult;
  const status = called._meta?.[STATUS_META_KEY];
  if (!called.isError) return { outcome: 'ok', ...(typeof status === 'number' ? { status } : {}) };
  const error =
    audit.error ??
    (called.structuredContent as { error?: { code?: unknown; status?: unknown } } | undefined)?.error;
  return {
    outcome: typeof error?.code === 'string' ? error.code : 'error',
    ...(typeof error?.status === 'number' ? { status: error.status } : {}),
  };
}

export type CallParams = {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

/** A name as a log line or message may show it: the caller's text, of any length. */
export function shortName(name: unknown): string {
  const text = typeof name === 'string' ? name : (JSON.stringify(name) ?? String(name));
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
