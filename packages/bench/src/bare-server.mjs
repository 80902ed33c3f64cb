// The floor: a bare MCP SDK server with one tool that makes the same axios call as the host's
// tool and returns the body once, as text. No validation, no auth logic, no logging. A second
// tool, get_big {bytes}, fetches the large body of the result-size phase the same way.
// Usage: node bare-server.mjs <upstream base URL> [--http PORT] [--list FILE]
// --list FILE: tools/list answers with the tools in FILE (a JSON array) as well, so that a cold
// start can be timed with another server's catalog: the cost of listing those tools, on both
// sides of the pipe, without that server's own start-up.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import axios from 'axios';

const argv = process.argv.slice(2);
const [base, flag, portArg] = argv;
const listFile = argv.includes('--list') ? argv[argv.indexOf('--list') + 1] : undefined;
/** @type {object[]} */
const listedToo = listFile ? JSON.parse(readFileSync(listFile, 'utf8')) : [];
const url = `${base}/events/v3/event-definitions`;
const tool = {
  name: 'list_event_definitions',
  description: 'List custom event definitions.',
  inputSchema: {
    type: 'object',
    properties: { limit: { type: 'integer', minimum: 1, description: 'Page size.' } },
  },
};
const bigTool = {
  name: 'get_big',
  description: 'Fetch a large JSON body.',
  inputSchema: { type: 'object', properties: { bytes: { type: 'integer', minimum: 1 } } },
};

function createMcpServer() {
  const server = new Server({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [tool, bigTool, ...listedToo],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const big = request.params.name === bigTool.name;
    const res = await axios.get(big ? `${base}/big/bytes-${request.params.arguments?.bytes}` : url, {
      params: big ? {} : { limit: request.params.arguments?.limit },
      headers: { accept: 'application/json', authorization: 'Bearer bench-token' },
    });
    return { content: [{ type: 'text', text: JSON.stringify(res.data) }] };
  });
  return server;
}

if (flag === '--http') {
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  /** @type {Map<string, import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport>} */
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    let parsed;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) sessions.delete(created.sessionId);
      };
      await createMcpServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, parsed);
  });
  http.listen(Number(portArg), '127.0.0.1');
} else {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  await createMcpServer().connect(new StdioServerTransport());
}
