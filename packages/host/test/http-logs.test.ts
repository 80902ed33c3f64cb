import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost } from '../src/host.js';
import { serveHttp } from '../src/http/serve-http.js';
import { capturedLogger, fixtureApp, echoOAuthConfig as oauthConfig } from './support.js';

describe('the HTTP host, as an operator reads it', () => {
  it('refuses OAuth on a wildcard bind without a public URL, naming the setting', async () => {
    const host = await createHost(oauthConfig, { configDir: fixtureApp, env: {} });
    await expect(
      serveHttp(host, {
        bindAddress: '0.0.0.0',
        port: 0,
        accessTokens: new AccessTokens({ alice: 'alice-token-0123456789' }),
      }),
    ).rejects.toThrow(
      /Refusing to serve OAuth on the wildcard address 0\.0\.0\.0 without http\.publicUrl: the redirect URI of echo-auth would name 0\.0\.0\.0/,
    );
    await host.close();
  });

  it('logs a line, with the user, when a session opens and when it closes', async () => {
    const { logger, lines } = capturedLogger();
    const host = await createHost({ plugins: ['toolhost-plugin-echo'] }, { configDir: fixtureApp, env: {} });
    const server = await serveHttp(host, { port: 0, logger });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    const client = new Client({ name: 'log-reader', version: '1.0.0' });
    await client.connect(transport);
    await transport.terminateSession();
    await client.close();
    await expect.poll(lines).toMatch(/"user":"default".*"msg":"session closed"/);
    expect(lines()).toMatch(/"user":"default".*"msg":"session opened"/);
    await server.close();
    await host.close();
  });
});
