/**
 * The host's tools as OpenAI Agents SDK function tools, called in process: no MCP server,
 * client or transport between the agent and the tools. `@openai/agents-core` (which
 * `@openai/agents` brings) is an optional peer dependency, loaded only by this entry
 * (`@toolhost/host/openai-agents`).
 */
import { type FunctionTool, tool } from '@openai/agents-core';
import type { Host } from './host.js';
import { type InProcessTool, type InProcessToolsOptions, inProcessCatalog } from './in-process-catalog.js';

export type OpenAiAgentsToolsOptions = InProcessToolsOptions;

/**
 * Whether strict mode keeps what the schema accepts: it closes every object, so a schema with
 * an object open to any property (`call_tool`'s `arguments`, a free-form record, one that says
 * `additionalProperties`) stays non-strict, as the SDK decides for MCP tools. An object that
 * lists its properties is closed already: the host refuses a parameter it does not list.
 */
function closedObjects(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(closedObjects);
  if (typeof schema !== 'object' || schema === null) return true;
  const s = schema as Record<string, unknown>;
  const isObject = s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'));
  const listed = typeof s.properties === 'object' && Object.keys(s.properties ?? {}).length > 0;
  if (isObject && s.additionalProperties !== false && (!listed || 'additionalProperties' in s)) return false;
  return Object.values(s).every(closedObjects);
}

function functionTool(t: InProcessTool, strict: boolean): FunctionTool {
  return tool({
    name: t.name,
    description: t.description,
    parameters: t.inputSchema as never,
    strict,
    execute: async (args: unknown, _context: unknown, details?: { signal?: AbortSignal }) =>
      (await t.call((args ?? {}) as Record<string, unknown>, details?.signal)).value,
  }) as FunctionTool;
}

/**
 * The host's tools as function tools, chosen as `@toolhost/host/ai-sdk` chooses (the MCP names,
 * `catalog: 'auto'` giving the discovery tools above 100 tools, `only` by name or glob). Each is
 * strict where OpenAI's strict mode accepts its schema unchanged, else non-strict; the host
 * checks every call's arguments. A success answers the upstream's body; a failure answers
 * `{ error }` with its code, message and `retryable` as the tool's output, for the model to act
 * on (a thrown error would reach it only as the SDK's generic "An error occurred").
 */
export function tools(host: Host, options: OpenAiAgentsToolsOptions = {}): FunctionTool[] {
  return inProcessCatalog(host, options).map((t) => {
    if (!closedObjects(t.inputSchema)) return functionTool(t, false);
    try {
      return functionTool(t, true);
    } catch {
      // A keyword strict mode refuses, or an optional property it cannot make nullable.
      return functionTool(t, false);
    }
  });
}
