import type { ToolPlugin } from '@toolhost/core';
import { createHost, MemoryTokenStore, serveHttp } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { pluginPackages, registryOf } from '../src/plugins.js';

/** Where each OAuth provider sends users when the operator configures only a client id. */
const VENDOR_AUTHORIZE_URLS: Record<string, string> = {
  'crm-auth-provider': 'https://app.hubspot.com/oauth/authorize',
  'grid-auth-provider': 'https://airtable.com/oauth2/v1/authorize',
};

async function loadPlugin(name: string): Promise<ToolPlugin> {
  return (await import(name)).default as ToolPlugin;
}

/** Per OAuth provider a plugin's tools use: one of its tools callable with no arguments. */
function oneToolPerProvider(plugin: ToolPlugin) {
  const byProvider = new Map<string, string | undefined>();
  for (const t of registryOf([plugin]).list()) {
    const auth = t.declaration.auth;
    if (auth.kind !== 'provider') continue;
    const needsNothing =
      !(t.inputSchema as { required?: string[] }).required?.length &&
      !t.declaration.params?.some((p) => p.fromSetting);
    if (!byProvider.get(auth.provider)) byProvider.set(auth.provider, needsNothing ? t.name : undefined);
  }
  return byProvider;
}

// Plugins are loaded one at a time, as a team that enables a single tool set would: each must
// bring its vendor's OAuth endpoints itself rather than rely on another plugin having done so.
describe.each(pluginPackages())('%s alone', (name) => {
  it('sends users to its vendor to authorize when only a client id is configured', async () => {
    const plugin = await loadPlugin(name);
    const tools = oneToolPerProvider(plugin);
    for (const [provider, tool] of tools) {
      expect(tool, `${name} has a ${provider} tool without required parameters`).toBeDefined();
      const host = await createHost(
        {
          plugins: [name],
          auth: {
            providers: {
              [provider]: {
                clientId: 'client-1',
                redirectUri: `http://127.0.0.1:3333/oauth/callback/${provider}`,
              },
            },
          },
        },
        { env: {}, tokenStore: new MemoryTokenStore() },
      );
      // The link handed to the user opens on the host, which binds the browser and sends it on.
      const server = await serveHttp(host, { port: 0 });
      try {
        const outcome = await host.callTool(tool!, {}, { userId: 'alice' });
        if (outcome.ok) throw new Error(`${tool} answered without authorization`);
        expect(outcome.error.code, outcome.error.message).toBe('authorization_required');
        const link = (outcome.error as { authorization: { url: string } }).authorization.url;
        expect(link.startsWith(`${new URL(server.url).origin}/oauth/start/${provider}?`)).toBe(true);
        const res = await fetch(link, { redirect: 'manual' });
        const url = new URL(res.headers.get('location')!);
        expect(url.origin + url.pathname).toBe(VENDOR_AUTHORIZE_URLS[provider]);
      } finally {
        await server.close();
        await host.close();
      }
    }
  });
});
