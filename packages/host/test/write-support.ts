import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { ToolDeclaration } from '@toolhost/core';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import { createMcpServer } from '../src/mcp/create-mcp-server.js';
import { prepareMcpServingState } from '../src/mcp/serving-state.js';
import { inlinePlugin } from './support.js';

export { postModernCall } from './support.js';

/** A write with everything a request can carry: path, query, header-free body, a secret. */
export const writeTools: ToolDeclaration[] = [
  {
    name: 'UpdateThing',
    description: 'Update a thing.',
    method: 'PATCH',
    path: '/things/{id}',
    auth: { kind: 'secret', secret: 'WRITE_KEY', scheme: 'bearer' },
    body: { kind: 'fields' },
    params: [
      { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Thing id.' },
      { name: 'notify', in: 'query', schema: { type: 'boolean' }, description: 'Notify watchers.' },
      { name: 'title', in: 'body', required: true, schema: { type: 'string' }, description: 'New title.' },
    ],
  },
  {
    name: 'ListThings',
    description: 'List things.',
    method: 'GET',
    path: '/things',
    auth: { kind: 'secret', secret: 'WRITE_KEY', scheme: 'bearer' },
  },
];

/** A read of one thing beside them, behind the secret named `secret`. */
export const getThingTool = (secret = 'WRITE_KEY'): ToolDeclaration => ({
  name: 'GetThing',
  description: 'Get a thing.',
  method: 'GET',
  path: '/things/{id}',
  auth: { kind: 'secret', secret, scheme: 'bearer' },
  params: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Thing id.' }],
});

export const WRITE_KEY = 'write-key-secret-0123456789';

/** A host of the write tools against `upstreamUrl`, with their secret set. */
export function writeHost(
  upstreamUrl: string,
  config: HostConfig = {},
  env: NodeJS.ProcessEnv = {},
): Promise<Host> {
  return createHost(
    { ...config, toolSets: { WriteApi: { baseUrl: upstreamUrl } } },
    { plugins: [inlinePlugin('WriteApi', writeTools)], env: { WRITE_KEY, ...env } },
  );
}

/** An MCP client on an in-process server of `host`, as a user, with the given capabilities. */
export async function mcpClient(
  host: Host,
  options: { userId?: string; capabilities?: ClientCapabilities } = {},
): Promise<Client> {
  const server = createMcpServer(
    host,
    prepareMcpServingState(host),
    options.userId ? { userId: options.userId } : {},
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name: 'writes-test', version: '0.0.0' },
    options.capabilities ? { capabilities: options.capabilities } : {},
  );
  await server.connect(a);
  await client.connect(b);
  return client;
}

/** The JSON a tool result carries as its text. */
export function textOf(result: unknown): unknown {
  return JSON.parse(((result as CallToolResult).content[0] as { text: string }).text);
}

/** What a 2026-07-28 client sends again, after asking the person: their answers and the call's state. */
export interface ModernRetry {
  requestState?: string;
  inputResponses?: Record<string, unknown>;
}

/** The person's "send it" to a confirmation, as a 2026-07-28 retry carries it. */
export const AGREE = { confirm: { action: 'accept', content: { send: true } } };
