import type { ToolErrorInfo } from '@toolhost/core';
import type { ToolIndex } from '@toolhost/search';
import type { Host, ToolInfo } from '../host-api.js';
import type { ToolNameMap } from '../tool-names.js';
import { alwaysLoaded } from './client-catalog.js';
import { compactLargeSchema } from './compact-schema.js';
import { exampleCall } from './example-call.js';
import { HOST_TOOL_LIMITS } from './host-tool-arguments.js';
import { renderOutcome } from './render-outcome.js';
import type { CallToolResult, Tool } from './sdk.js';
import { skillUri } from './skills.js';

/** The three tools a dynamic catalog lists instead of every tool. */
export const SEARCH_TOOLS = 'search_tools';
export const DESCRIBE_TOOLS = 'describe_tools';
export const CALL_TOOL = 'call_tool';

const MAX_LIMIT = 25;
const MAX_DESCRIBE = 20;

/** `search_tools`: its enum names the loaded tool sets. */
function searchToolsTool(toolSets: readonly string[], toolCount: number): Tool {
  return {
    name: SEARCH_TOOLS,
    description: `Find the tools for a task among this server's ${toolCount} tools. Say the task in plain words (what, on which object, in which product); best matches first. Then describe_tools for their parameters and call_tool to run one.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: HOST_TOOL_LIMITS.queryLength,
          description: 'The task, e.g. "list the rows of an Airtable table where Status is Done"',
        },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 5 },
        tool_set: { type: 'string', enum: [...toolSets], description: 'Only tools of this tool set' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        tools: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              description: { type: 'string' },
              toolSet: { type: 'string' },
              readOnly: { type: 'boolean' },
              differs: {
                type: 'string',
                description: 'How it differs from the tool it is most easily taken for',
              },
            },
            required: ['name', 'description', 'toolSet', 'readOnly'],
          },
        },
        skills: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description:
            'The skill of each tool set answered (its workflows, ids, paging and pitfalls), by tool set: a resource URI to read before a multi-step task',
        },
      },
      required: ['tools'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

/**
 * The three discovery tools as `tools/list` shows them; `toolSets` are the loaded sets. Each
 * stays loaded in clients that defer tools (`anthropic/alwaysLoad`): they are the only way to
 * the others.
 */
export function discoveryTools(toolSets: readonly string[], toolCount: number): Tool[] {
  const tools: Tool[] = [
    searchToolsTool(toolSets, toolCount),
    {
      name: DESCRIBE_TOOLS,
      description:
        "The input schemas of tools found with search_tools, an example call_tool call of each and, for tools with a mode parameter, their request body's schema.",
      inputSchema: {
        type: 'object',
        properties: {
          names: {
            type: 'array',
            items: TOOL_NAME_SCHEMA,
            minItems: 1,
            maxItems: MAX_DESCRIBE,
          },
        },
        required: ['names'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      description:
        'Call a tool by name with its arguments; the answer is what calling the tool directly returns.',
      inputSchema: {
        type: 'object',
        properties: {
          name: TOOL_NAME_SCHEMA,
          arguments: { type: 'object' },
          idempotency_key: IDEMPOTENCY_KEY_SCHEMA,
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
  ];
  return tools.map(alwaysLoaded);
}

/** Write previews: listed in both catalogs whenever a listed tool can write. */
export const PREVIEW_TOOL_CALL = 'preview_tool_call';
export const APPLY_PREVIEW = 'apply_preview';

const TOOL_NAME_SCHEMA = { type: 'string', minLength: 1, maxLength: HOST_TOOL_LIMITS.nameLength };

const IDEMPOTENCY_KEY_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Optional. A key of your choosing (e.g. a UUID) per intended write: calling again with the same key and arguments answers the first outcome and sends nothing.',
};

/**
 * `preview_tool_call` and `apply_preview` as `tools/list` shows them; kept loaded beside the
 * discovery tools in the dynamic catalog (`alwaysLoad`), and deferrable like any tool in the
 * static listing.
 */
export function previewTools(alwaysLoad = false): Tool[] {
  const tools: Tool[] = [
    {
      name: PREVIEW_TOOL_CALL,
      description:
        'Check a tool call and see the exact HTTP request it would send (method, URL, headers with credentials redacted, body) without sending anything. Answers a preview_id to send that request with apply_preview.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { ...TOOL_NAME_SCHEMA, description: 'The tool to call' },
          arguments: { type: 'object', description: 'Its arguments, as for calling it directly' },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: APPLY_PREVIEW,
      description:
        'Send the request of a preview from preview_tool_call, exactly as shown, once; the answer is what calling the tool directly returns.',
      inputSchema: {
        type: 'object',
        properties: {
          preview_id: { type: 'string', minLength: 1, maxLength: HOST_TOOL_LIMITS.previewIdLength },
          idempotency_key: IDEMPOTENCY_KEY_SCHEMA,
        },
        required: ['preview_id'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
  ];
  return alwaysLoad ? tools.map(alwaysLoaded) : tools;
}

/** The server instructions of a dynamic catalog: how to find and call the unlisted tools. */
export function discoveryInstructions(toolSets: readonly string[], toolCount: number): string {
  return [
    `This server has ${toolCount} tools over SaaS APIs (tool sets ${toolSets.join(', ')}), each mirroring one HTTP endpoint.`,
    'Unless your client lists them itself, find them with search_tools (the task in plain words), read the parameters of the ones you pick with describe_tools, then run one with call_tool.',
    'Tools with a `mode` parameter send a JSON body: mode "get_request_schema" returns its schema, mode "execute" sends `request_body` as a JSON string.',
    'A result over the size budget comes back as a summary with a resource link to the whole result.',
    'Errors come back with isError and a structured `error` {code, message, retryable}.',
  ].join(' ');
}

/**
 * What search_tools or describe_tools answered: the result as sent, and what its text says as a
 * value (the answer, or the error), so that nothing reads the text back.
 */
export type DiscoveryAnswer =
  | { ok: true; result: CallToolResult; value: unknown }
  | { ok: false; result: CallToolResult; error: ToolErrorInfo };

function failed(error: ToolErrorInfo): DiscoveryAnswer {
  return { ok: false, result: renderOutcome({ ok: false, error }), error };
}

// search_tools declares an output schema, which an error does not fit: its errors are text only.
function invalidSearch(message: string, parameter: string): DiscoveryAnswer {
  const error = { code: 'invalid_argument' as const, message, retryable: false, parameter };
  const { structuredContent: _unfit, ...result } = renderOutcome({ ok: false, error });
  return { ok: false, result, error };
}

/** What search_tools and describe_tools answer, over the host's (filtered) tools. */
export class DiscoveryCatalog {
  private index: Promise<ToolIndex> | undefined;
  private readonly exposed: ReadonlyMap<string, ToolInfo>;
  /** The SKILL.md URI of each tool set's skill, for the answers to point to. */
  private readonly skills: ReadonlyMap<string, string>;

  /**
   * `tools`: the tools searched and described, as the host describes them (default all the
   * host's; fewer for a request that narrowed its catalog). `whole`: the host's, whose index this
   * one searches: an index per narrowing, which clients vary, cost 9 MB and a second of CPU each.
   */
  constructor(
    private readonly host: Host,
    private readonly names: ToolNameMap,
    private readonly tools: readonly ToolInfo[] = host.listTools(),
    private readonly whole?: DiscoveryCatalog,
  ) {
    this.exposed = new Map(tools.map((t) => [t.name, t]));
    this.skills = new Map(host.serving.skills.map((s) => [s.toolSet, skillUri(s.folder)]));
  }

  /** The skills of the tool sets these tools belong to, by tool set (none: undefined). */
  private skillsOf(toolSets: Iterable<string>): Record<string, string> | undefined {
    const out: Record<string, string> = {};
    for (const set of toolSets) {
      const uri = this.skills.get(set);
      if (uri) out[set] = uri;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * Loads the search library and builds the index, once: ahead of the first search (the
   * server calls it after the first tools/list), never in the static catalog's start-up.
   */
  warm(): Promise<ToolIndex> {
    if (this.whole) return this.whole.warm();
    this.index ??= import('@toolhost/search').then(
      ({ ToolIndex }) => new ToolIndex(this.tools, { pastRequests: this.host.serving.pastRequests }),
    );
    return this.index;
  }

  /** The canonical name of a tool named in either spelling (`Set.Tool` or `Set_Tool`), if exposed. */
  resolve(name: string): string | undefined {
    const canonical = this.names.canonicalName(name) ?? name;
    return this.exposed.has(canonical) ? canonical : undefined;
  }

  async search(args: Record<string, unknown>): Promise<DiscoveryAnswer> {
    const { query, limit = 5, tool_set: toolSet } = args;
    if (typeof query !== 'string' || query.trim() === '')
      return invalidSearch("Parameter 'query' is required: the task in plain words.", 'query');
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return invalidSearch(`Parameter 'limit' must be an integer from 1 to ${MAX_LIMIT}.`, 'limit');
    if (toolSet !== undefined && typeof toolSet !== 'string')
      return invalidSearch("Parameter 'tool_set' must be a tool set name.", 'tool_set');
    const index = await this.warm();
    const only = this.tools.length < (this.whole?.tools.length ?? 0) ? this.exposed : undefined;
    const tools = index.search(query, { limit, toolSet, ...(only && { only }) }).map((m) => ({
      name: this.names.mcpName(m.name),
      description: m.description,
      toolSet: m.toolSet,
      readOnly: m.readOnly,
      ...(m.differs ? { differs: m.differs } : {}),
    }));
    const skills = this.skillsOf(tools.map((t) => t.toolSet));
    const value = skills ? { tools, skills } : { tools };
    return {
      ok: true,
      result: { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value },
      value,
    };
  }

  describe(args: Record<string, unknown>): DiscoveryAnswer {
    const { names } = args;
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      names.length > MAX_DESCRIBE ||
      !names.every((n) => typeof n === 'string')
    )
      return failed({
        code: 'invalid_argument',
        message: `Parameter 'names' must be a list of 1 to ${MAX_DESCRIBE} tool names.`,
        retryable: false,
        parameter: 'names',
      });
    const tools: Record<string, unknown>[] = [];
    const unknown: string[] = [];
    for (const name of names as string[]) {
      const canonical = this.resolve(name);
      const info = canonical ? this.exposed.get(canonical) : undefined;
      if (!canonical || !info) {
        unknown.push(name);
        continue;
      }
      const bodySchema = this.host.serving.requestBodySchema(canonical) as
        | Record<string, unknown>
        | undefined;
      const mcpName = this.names.mcpName(canonical);
      tools.push({
        name: mcpName,
        toolSet: info.toolSet,
        description: info.description,
        readOnly: info.hints.readOnly,
        inputSchema: info.inputSchema,
        ...(bodySchema ? { requestBodySchema: compactLargeSchema(bodySchema) } : {}),
        example: exampleCall(mcpName, info.inputSchema, bodySchema),
        ...(this.skills.has(info.toolSet) ? { skill: this.skills.get(info.toolSet) } : {}),
      });
    }
    if (tools.length === 0) {
      return failed({
        code: 'unknown_tool',
        message: `No such tool: ${unknown.join(', ')}. Use search_tools to find tools by what they do.`,
        retryable: false,
      });
    }
    const value = unknown.length > 0 ? { tools, unknown } : { tools };
    return { ok: true, result: { content: [{ type: 'text', text: JSON.stringify(value) }] }, value };
  }
}
