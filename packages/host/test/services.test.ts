import 'reflect-metadata';
import type { StoredToken, TokenStore } from '@toolhost/core';
import type { HttpRequestSpec, HttpResponse, HttpSender } from '@toolhost/engine';
import { container as rootContainer } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { containerOf, createHost } from '../src/host.js';
import { HostServices, registerService, resolveService } from '../src/services.js';
import { fixtureApp, echoOAuthConfig as oauthConfig } from './support.js';

/** A sender that answers from memory and keeps what it was asked to send. */
class CapturingSender implements HttpSender {
  readonly sent: HttpRequestSpec[] = [];
  async send(request: HttpRequestSpec): Promise<HttpResponse> {
    this.sent.push(request);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: { captured: true } };
  }
}

/** An embedder's token store (a database, a secrets manager) with one user's token in it. */
class EmbedderTokenStore implements TokenStore {
  readonly reads: string[] = [];
  constructor(private readonly tokens: Record<string, StoredToken>) {}
  async get(providerId: string, userId: string) {
    this.reads.push(`${providerId}/${userId}`);
    return this.tokens[`${providerId}/${userId}`];
  }
  async set() {}
  async delete() {}
}

describe('services through the container', () => {
  it('an embedder replaces the HTTP sender and the token store by registering them', async () => {
    const embedder = rootContainer.createChildContainer();
    const sender = new CapturingSender();
    const store = new EmbedderTokenStore({
      'echo-auth/carol': { accessToken: 'carols-token', scopes: ['items.read'] },
    });
    registerService(embedder, HostServices.httpSender, sender);
    registerService(embedder, HostServices.tokenStore, store);

    const host = await createHost(oauthConfig, { container: embedder, configDir: fixtureApp, env: {} });
    const outcome = await host.callTool('EchoApi.GetItem', { item_id: 'i1' }, { userId: 'carol' });

    expect(outcome).toEqual({ ok: true, kind: 'response', status: 200, body: { captured: true } });
    expect(store.reads).toEqual(['echo-auth/carol']);
    expect(sender.sent).toHaveLength(1);
    expect(sender.sent[0]).toMatchObject({ method: 'GET', url: 'https://echo.invalid/items/i1' });
    expect(sender.sent[0]!.headers.authorization).toBe('Bearer carols-token');
    // The host's own services resolve from its container, and the embedder's are the ones used.
    expect(resolveService(containerOf(host), HostServices.httpSender)).toBe(sender);
    expect(resolveService(containerOf(host), HostServices.tokenStore)).toBe(store);
    await host.close();
  });

  it('builds its defaults only where nothing is registered, once', async () => {
    const host = await createHost({ plugins: ['toolhost-plugin-echo'] }, { configDir: fixtureApp, env: {} });
    const engine = resolveService(containerOf(host), HostServices.engine);
    expect(resolveService(containerOf(host), HostServices.engine)).toBe(engine);
    expect(
      resolveService(containerOf(host), HostServices.registry)
        .list()
        .map((t) => t.name),
    ).toEqual(['EchoApi.GetItem', 'EchoApi.DeleteItem', 'EchoApi.CreateItem']);
    await host.close();
  });

  it('leaves the embedder’s container untouched: two hosts on one container do not share tool sets', async () => {
    const embedder = rootContainer.createChildContainer();
    const a = await createHost(
      { plugins: ['toolhost-plugin-echo'] },
      { container: embedder, configDir: fixtureApp, env: {} },
    );
    const b = await createHost(
      { plugins: ['toolhost-plugin-echo'] },
      { container: embedder, configDir: fixtureApp, env: {} },
    );
    expect(a.listTools()).toHaveLength(3);
    expect(b.listTools()).toHaveLength(3);
    await a.close();
    await b.close();
  });
});
