import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { HostConfig } from '@toolhost/host';

export interface SpawnedHost {
  client: Client;
  /** Everything the host wrote to stderr (its logs) so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Path of the built CLI of the `@toolhost/host` this kit depends on: the host a test spawns. */
export function hostCliPath(): string {
  const pkgJson = createRequire(import.meta.url).resolve('@toolhost/host/package.json');
  return join(dirname(pkgJson), 'dist', 'cli.js');
}

/**
 * Starts the real host CLI as a child process on stdio with the given config written to a
 * temporary file, and connects the MCP SDK's Client to it.
 */
export async function spawnHost(
  config: HostConfig,
  options: {
    env?: Record<string, string>;
    cwd?: string;
    args?: string[];
    /**
     * `legacy` (default): the client opens with `initialize` (MCP 2025-11-25). `auto`: it asks
     * for MCP 2026-07-28 first (`server/discover`) and falls back, as current clients do.
     */
    protocol?: 'legacy' | 'auto';
  } = {},
): Promise<SpawnedHost> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-test-'));
  const file = join(dir, 'toolhost.config.json');
  writeFileSync(file, JSON.stringify(config));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [hostCliPath(), '--config', file, 'serve', '--stdio', ...(options.args ?? [])],
    env: { PATH: process.env.PATH ?? '', ...options.env },
    cwd: options.cwd ?? process.cwd(),
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable | null)?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const client = new Client(
    { name: 'toolhost-test', version: '0.0.0' },
    options.protocol === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`host failed to start: ${(e as Error).message}\n${stderr}`);
  }
  return {
    client,
    stderr: () => stderr,
    close: () => client.close(),
  };
}
