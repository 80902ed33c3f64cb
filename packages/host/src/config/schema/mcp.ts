/** `mcp`: how the tools are listed and served over MCP. */
export const mcpSection = {
  type: 'object',
  additionalProperties: false,
  description: 'How tools are presented over MCP.',
  properties: {
    nameSeparator: {
      type: 'string',
      pattern: '^[A-Za-z0-9_.-]{1,3}$',
      description: 'Separator between tool set and tool in MCP tool names (`CrmEventsApi_SendEvent`).',
      default: '_',
    },
    catalog: {
      enum: ['auto', 'static', 'dynamic'],
      description:
        "`static` lists every tool; `dynamic` lists `search_tools`, `describe_tools` and `call_tool`, for clients that cannot hold the whole catalog; `auto` is `static` up to 100 listed tools and `dynamic` above (OpenAI and VS Code take at most 128 tools per request, shared with the client's own).",
      default: 'auto',
      'x-env': 'TOOLHOST_CATALOG',
      'x-flag': '--catalog',
    },
    maxResultBytes: {
      type: 'integer',
      minimum: 4096,
      maximum: 64 * 1024 * 1024,
      description:
        'Largest tool result text in bytes (about 20,000 tokens by default); a larger result comes back as a summary with a resource link to the whole result.',
      default: 80_000,
    },
    resultTtlSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86_400,
      description: 'How long such a whole result stays readable, in seconds.',
      default: 900,
    },
  },
} as const;
