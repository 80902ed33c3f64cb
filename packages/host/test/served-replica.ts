import { Writable } from 'node:stream';
import { AccessTokens } from '../src/auth/access-tokens.js';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost } from '../src/host.js';
import { serveHttp } from '../src/http/serve-http.js';
import { createLogger } from '../src/logger.js';
import { fixtureApp } from './support.js';

/** A replica a scenario talks to over HTTP: where it listens, and what it logged. */
export interface HttpReplica {
  url: string;
  logs(): string;
}

/** A replica served in this process; `close()` stops it as SIGTERM stops `toolhost serve --http`. */
export interface ServedReplica extends HttpReplica {
  close(): Promise<void>;
}

/**
 * `toolhost serve --http 0` with `config` and `env`, in this process: its own host (container,
 * engine, store connections) and HTTP server, as a replica process has. The spawned process
 * loads the host's modules anew for each replica (1-1.5 s of CPU to start, more for each
 * module it loads lazily at its first requests), which the scenarios that never stop a
 * process need not pay; the ones that kill a replica (SIGKILL) spawn real processes, and
 * cli.test.ts and the serve tests test the CLI itself. Access tokens come from
 * TOOLHOST_ACCESS_TOKENS in `env`, as the CLI takes them.
 */
export async function serveReplica(config: HostConfig, env: Record<string, string>): Promise<ServedReplica> {
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
