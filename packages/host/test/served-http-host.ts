import { Writable } from 'node:stream';
import { AccessTokens } from '../src/auth/access-tokens.js';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import { serveHttp } from '../src/http/serve-http.js';
import { createLogger } from '../src/logger.js';
import { fixtureApp } from './support.js';

/** A host a test talks to over HTTP (a replica, in the replica scenarios): where it listens, and what it logged. */
export interface HttpReplica {
  url: string;
  logs(): string;
}

/** A host served in this process; `close()` stops it as SIGTERM stops `toolhost serve --http`. */
export interface ServedHttpHost extends HttpReplica {
  /** The host it serves, for a test that reaches into its parts. */
  host: Host;
  close(): Promise<void>;
}

/**
 * `toolhost serve --http 0` with `config` and `env`, in this process: its own host (container,
 * engine, store connections) and HTTP server, as a replica process has. A spawned process
 * (spawnHttpHost) loads the host's modules anew for each host (1-1.5 s of CPU to start, more
 * for each module it loads lazily at its first requests), which tests of what a listening
 * server does need not pay. Tests of the process itself spawn it: signals, a replica killed
 * (SIGKILL), start-up, what the CLI reads from its environment, an event loop measured apart
 * from the test's. Access tokens come from TOOLHOST_ACCESS_TOKENS in `env`, as the CLI takes them.
 */
export async function serveHttpHost(
  config: HostConfig,
  env: Record<string, string>,
): Promise<ServedHttpHost> {
  let logs = '';
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _enc, done) {
        logs += chunk.toString();
        done();
      },
    }),
  );
  const host = await createHost(config, { configDir: fixtureApp, env, logger });
  try {
    const server = await serveHttp(host, {
      port: 0,
      accessTokens: AccessTokens.fromConfig(host.config, env),
      logger,
    });
    return {
      url: server.url,
      host,
      logs: () => logs,
      async close() {
        await server.beginStopping({ drainDelaySeconds: 0 });
        await host.close();
        await server.close();
      },
    };
  } catch (e) {
    await host.close();
    throw e;
  }
}
