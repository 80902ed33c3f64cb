import {
  type AuthProvider,
  type SecretSource,
  type ServiceToken,
  serviceToken,
  type TokenStore,
} from '@toolhost/core';
import type { HttpSender, ToolEngine, ToolRegistry } from '@toolhost/engine';
import type { DependencyContainer } from 'tsyringe';
import type { HostConfig } from './config/host-config.js';
import type { Logger } from './logger.js';

/**
 * The host's services, each under a typed token in its tsyringe container. An embedding
 * runtime replaces any of them by registering its own under the token in the container it
 * passes to `createHost` (or in a child of it); the host registers its default only where
 * nothing is registered yet.
 */
export const HostServices = {
  /** The validated host configuration. */
  config: serviceToken<HostConfig>('host.config'),
  logger: serviceToken<Logger>('host.logger'),
  /** The engine's only way out to the network (default: axios with keep-alive pools). */
  httpSender: serviceToken<HttpSender>('host.http-sender'),
  /** Where OAuth tokens live (default: encrypted file with TOOLHOST_TOKEN_KEY, else memory). */
  tokenStore: serviceToken<TokenStore>('host.token-store'),
  /** Named secrets such as CDP_API_KEY (default: environment, config, secrets file). */
  secretSource: serviceToken<SecretSource>('host.secret-source'),
  /** Auth providers; each registered one replaces the host's own for its id (register several). */
  authProvider: serviceToken<AuthProvider>('host.auth-provider'),
  /** Every tool of the loaded plugins that the configuration exposes. */
  registry: serviceToken<ToolRegistry>('host.registry'),
  engine: serviceToken<ToolEngine>('host.engine'),
} as const;

/** Resolves a service by its typed token. */
export function resolveService<T>(container: DependencyContainer, token: ServiceToken<T>): T {
  return container.resolve<T>(token);
}

/** Every registration under a token (none is an empty list, not an error). */
export function resolveServices<T>(container: DependencyContainer, token: ServiceToken<T>): T[] {
  return container.isRegistered(token, true) ? container.resolveAll<T>(token) : [];
}

/** The service under a token, or undefined where none is registered. */
export function resolveIfAny<T>(container: DependencyContainer, token: ServiceToken<T>): T | undefined {
  return container.isRegistered(token, true) ? container.resolve<T>(token) : undefined;
}

/** Registers a value under a typed token. */
export function registerService<T>(container: DependencyContainer, token: ServiceToken<T>, value: T): void {
  container.register<T>(token, { useValue: value });
}

/**
 * Registers a lazily built default, unless the container (or a parent) already has the
 * service: the embedder's registration wins. Built once, on first resolution. Returns whether
 * the service exists by now (given, or built), so that shutdown touches only what was used.
 */
export function registerDefault<T>(
  container: DependencyContainer,
  token: ServiceToken<T>,
  build: (c: DependencyContainer) => T,
): () => boolean {
  if (container.isRegistered(token, true)) return () => true;
  let built: { value: T } | undefined;
  container.register<T>(token, {
    useFactory: (c) => {
      built ??= { value: build(c) };
      return built.value;
    },
  });
  return () => built !== undefined;
}
