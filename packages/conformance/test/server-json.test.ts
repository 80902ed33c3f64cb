import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './pack-workspace.js';

const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));

describe('server.json for the MCP Registry', () => {
  const server = read('server.json') as {
    name: string;
    description: string;
    version: string;
    packages: { registryType: string; identifier: string; version: string; transport: { type: string } }[];
  };
  const host = read('packages/host/package.json') as { name: string; version: string; mcpName: string };

  it('names the server as the host package’s mcpName, which the registry checks against npm', () => {
    expect(server.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/);
    expect(host.mcpName).toBe(server.name);
  });

  it('points at the host package at its version, over stdio, with a description within the limit', () => {
    expect(server.version).toBe(host.version);
    expect(server.packages).toEqual([
      expect.objectContaining({
        registryType: 'npm',
        identifier: host.name,
        version: host.version,
        transport: { type: 'stdio' },
      }),
    ]);
    expect(server.description.length).toBeLessThanOrEqual(100);
  });
});
