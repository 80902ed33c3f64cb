import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolDeclaration } from '@toolhost/core';
import { ToolEngine } from '../engine.js';
import { UndiciHttpSender } from '../http-sender.js';
import { ToolRegistry } from '../registry.js';
import { MapSecretSource } from '../static-auth.js';

/** A request as the loopback upstream received it. */
export interface Received {
  method: string;
  url: string;
  body: string;
}

export interface LoopbackEngine {
  engine: ToolEngine;
  /** Calls `<toolSet>.<name>` as user u1. */
  call(name: string, args: unknown): ReturnType<ToolEngine['call']>;
  close(): Promise<void>;
}

/**
 * The real engine over a real HTTP sender, its one tool set `toolSet` served by an upstream on
 * 127.0.0.1 that pushes each request onto `received` and answers 200 with `answer()`.
 */
export async function startLoopbackEngine(
  toolSet: string,
  tools: ToolDeclaration[],
  received: Received[],
  answer: () => string = () => '{"ok":true}',
): Promise<LoopbackEngine> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sender = new UndiciHttpSender();
  const set = {
    contractVersion: '2.0' as const,
    toolSet,
    plugin: { name: 'p', version: '1' },
    servers: { default: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    tools,
  };
  const engine = new ToolEngine(new ToolRegistry([set]), {
    authProviders: [],
    secrets: new MapSecretSource({}),
    http: sender,
  });
  return {
    engine,
    call: (name, args) => engine.call(`${toolSet}.${name}`, args, { userId: 'u1' }),
    async close() {
      sender.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
