import { AccessTokens } from '../auth/access-tokens.js';
import { frontDoorFromConfig } from '../auth/front-door/front-door-config.js';
import { ConfigError } from '../config/load-config.js';
import type { Host } from '../host.js';
import type { HttpServeOptions } from '../http/http-settings.js';
import type { Logger } from '../logger.js';

type ServerInfo = { name: string; version: string };

export interface ServeOptions {
  stdio?: boolean;
  http?: number | true;
  host?: string;
}

/**
 * One warning per thing missing, naming the tool sets it stops, so a person sees it at start,
 * not at the first call, and once: the three HubSpot sets share one auth provider, whose
 * missing token is one thing to set, not three.
 */
async function warnUnready(host: Host, logger: Logger): Promise<void> {
  const stopped = new Map<string, { what: string; detail: string; toolSets: string[] }>();
  for (const set of await host.serving.readiness()) {
    for (const c of set.checks) {
      if (c.ok) continue;
      const key = `${c.what}: ${c.detail}`;
      const entry = stopped.get(key) ?? { what: c.what, detail: c.detail, toolSets: [] };
      entry.toolSets.push(set.toolSet);
      stopped.set(key, entry);
    }
  }
  // "setting userId missing for CrmAutomationApi": a missing setting stops some of a set's
  // tools, a missing credential all of them; the detail says which.
  for (const { what, detail, toolSets } of stopped.values())
    logger.warn({ toolSets, missing: `${what}: ${detail}` }, `${what} missing for ${toolSets.join(', ')}`);
}

// Type-only: the HTTP server's module itself loads only when it serves.
type HttpOptions = HttpServeOptions;
/** A transport being served: closed at the end, told first when stopping starts (HTTP). */
type Closer = {
  close: () => Promise<void>;
  beginStopping?: (options?: { drainDelaySeconds?: number }) => Promise<void>;
};

/** What the CLI adds to the HTTP server's settings, which it takes from `host.config.http` itself. */
function httpOptionsOf(host: Host, logger: Logger, opts: ServeOptions, serverInfo: ServerInfo): HttpOptions {
  const frontDoor = frontDoorFromConfig(host.config, process.env);
  return {
    ...(opts.host ? { bindAddress: opts.host } : {}),
    accessTokens: AccessTokens.fromConfig(host.config, process.env),
    ...(frontDoor ? { frontDoor } : {}),
    ...metricsTokenFromEnv(process.env),
    logger,
    serverInfo,
  };
}

/** TOOLHOST_METRICS_TOKEN, held to the rule of the config's `http.metricsToken`. */
function metricsTokenFromEnv(env: NodeJS.ProcessEnv): { metricsToken?: string } {
  const token = env.TOOLHOST_METRICS_TOKEN?.trim();
  if (!token) return {};
  if (token.length < 16) throw new ConfigError('TOOLHOST_METRICS_TOKEN must be 16 characters or more.');
  return { metricsToken: token };
}

async function serveOverHttp(
  host: Host,
  logger: Logger,
  options: HttpOptions,
  port: number,
): Promise<Closer> {
  const { serveHttp } = await import('../http/serve-http.js');
  const handle = await serveHttp(host, { ...options, port }).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'EADDRINUSE' ? portInUse(port, options.bindAddress ?? host.config.http.host) : e;
  });
  // What to register with each vendor's OAuth app, in the line an operator reads first.
  const redirectUris = Object.fromEntries(host.oauthProviders.map((p) => [p.id, p.signIn.redirectUri]));
  const oauth = host.oauthProviders.length > 0 ? { redirectUris } : {};
  logger.info({ url: handle.url, tools: host.listTools().length, ...oauth }, 'listening');
  return handle;
}

/** What to do about a taken port, instead of the raw EADDRINUSE. */
function portInUse(port: number, bindHost: string): Error {
  return new Error(
    `Port ${port} on ${bindHost} is in use (another toolhost, or another server): stop that server, or choose another port with --http <port>, TOOLHOST_PORT or http.port (0: any free port).`,
  );
}

/**
 * Over stdio there is no HTTP server, yet browsers must reach the OAuth pages. A second
 * agent's host on this machine finds the port taken: it serves them on a free port instead of
 * failing to start, and says which redirect URI that needs.
 */
async function serveOAuthPages(host: Host, logger: Logger, options: HttpOptions): Promise<Closer> {
  const { serveHttp } = await import('../http/serve-http.js');
  const wanted = host.config.http.port;
  const pages = (port: number) => serveHttp(host, { ...options, port, mcp: false });
  const callbacks = await pages(wanted).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EADDRINUSE') throw e;
    return pages(0);
  });
  const redirectUris = Object.fromEntries(host.oauthProviders.map((p) => [p.id, p.signIn.redirectUri]));
  if (callbacks.port !== wanted) {
    logger.warn(
      { port: wanted, url: callbacks.url, redirectUris },
      `port ${wanted} is in use (another host?): OAuth pages are served on port ${callbacks.port}; the authorization server must accept these redirect URIs (any loopback port, RFC 8252), or give each host its own port (TOOLHOST_PORT or http.port)`,
    );
  }
  logger.info({ url: callbacks.url, redirectUris }, 'serving OAuth pages');
  return callbacks;
}

async function serveOverStdio(host: Host, logger: Logger, serverInfo: ServerInfo): Promise<Closer> {
  // Over stdio, standard output is the MCP channel: an audit line there would break it.
  if ((process.env.TOOLHOST_AUDIT_LOG?.trim() || host.config.audit?.log) === 'stdout') {
    throw new ConfigError(
      'The audit log cannot go to stdout with the stdio transport (stdout carries MCP): set audit.log (TOOLHOST_AUDIT_LOG) to a file, or serve --http.',
    );
  }
  const { serveStdio } = await import('../stdio/serve-stdio.js');
  const handle = await serveStdio(host, { ...serverInfo, logger });
  logger.info({ tools: host.listTools().length }, 'serving on stdio');
  sayWhatStdioAwaits(process.stdin.isTTY, (text) => process.stderr.write(text));
  return { close: handle.close };
}

/**
 * Run by hand at a terminal, `serve` would wait in silence for a client that never comes: a
 * person is told, on stderr (stdout is the MCP channel). A client's pipe is no terminal: silent.
 */
export function sayWhatStdioAwaits(isTTY: boolean | undefined, write: (text: string) => void): void {
  if (!isTTY) return;
  write(
    'toolhost: this is an MCP server on stdio, waiting for an MCP client to write to its stdin. Let a client start it (see "Connecting clients" in the README), or run `toolhost serve --http` to serve over HTTP, or `toolhost doctor` to check the setup. Ctrl-C stops it.\n',
  );
}

/** Serves the host over stdio or Streamable HTTP until SIGINT or SIGTERM. */
export async function serve(
  host: Host,
  logger: Logger,
  opts: ServeOptions,
  serverInfo: ServerInfo,
): Promise<void> {
  const httpOptions = httpOptionsOf(host, logger, opts, serverInfo);
  await warnUnready(host, logger);
  const closers: Closer[] = [];
  // Each transport's modules load only when it is used (the Streamable HTTP server's cost
  // stays off the stdio start-up path, and the other way round).
  if (opts.http !== undefined && !opts.stdio) {
    const port = opts.http === true ? host.config.http.port : opts.http;
    closers.push(await serveOverHttp(host, logger, httpOptions, port));
  } else {
    if (host.oauthProviders.length > 0) closers.push(await serveOAuthPages(host, logger, httpOptions));
    closers.push(await serveOverStdio(host, logger, serverInfo));
  }
  // In-flight calls finish (or are cancelled at the grace deadline) before transports close.
  let stopping = false;
  const stop = async (signal: NodeJS.Signals | 'stdin closed') => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Balancers see 503 from this moment, not once the calls in progress have finished. On
    // SIGTERM (an orchestrator's) requests are still served for the drain delay, while the
    // balancers notice; Ctrl-C (SIGINT) is a person who wants it stopped now.
    const drain = signal === 'SIGTERM' ? {} : { drainDelaySeconds: 0 };
    await Promise.all(closers.map((c) => c.beginStopping?.(drain)));
    await host.close().catch(() => {});
    for (const c of closers) await c.close().catch(() => {});
    // The client left: exiting now would drop the answers a piped stdout still holds (its writes
    // are asynchronous), so the process ends once they are out, or in 5 s if something lingers.
    if (signal === 'stdin closed') setTimeout(() => process.exit(0), 5_000).unref();
    else process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // The client is gone (MCP's stdio shutdown): the OAuth pages' server kept the process alive, orphaned.
  if (opts.http === undefined || opts.stdio) process.stdin.once('end', () => stop('stdin closed'));
}
