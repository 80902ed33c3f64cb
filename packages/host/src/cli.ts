#!/usr/bin/env node
import { createRequire } from 'node:module';
import { Command, InvalidArgumentError } from 'commander';
import { AccessTokens } from './auth/access-tokens.js';
import { findConfig } from './config/find-config.js';
import type { HostConfig } from './config/host-config.js';
import { createHost, type Host } from './host.js';
import { createLogger } from './logger.js';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

type McpCatalogMode = NonNullable<NonNullable<HostConfig['mcp']>['catalog']>;

function catalogMode(value: string): McpCatalogMode {
  if (value !== 'static' && value !== 'dynamic') throw new InvalidArgumentError('expected static or dynamic');
  return value;
}

/** `catalog`: the --catalog flag, else TOOLHOST_CATALOG, else the config's `mcp.catalog`. */
async function openHost(configPath: string | undefined, catalog?: string): Promise<Host> {
  const found = findConfig(configPath, process.env, process.cwd());
  const mode = catalog ?? process.env.TOOLHOST_CATALOG;
  // A wrong value is refused by the config check, which names mcp.catalog.
  const config = mode
    ? { ...found.config, mcp: { ...found.config.mcp, catalog: mode as 'static' } }
    : found.config;
  return createHost(config, { configDir: found.dir, logger: createLogger(config.logging?.level) });
}

const program = new Command('toolhost')
  .description('Serve SaaS API tool sets to AI agents over the Model Context Protocol.')
  .version(pkg.version)
  .option(
    '-c, --config <file>',
    'config file (JSON or YAML); default $TOOLHOST_CONFIG or ./toolhost.config.{json,yaml}',
  )
  .showHelpAfterError();

program
  .command('serve')
  .description('serve the loaded tools over MCP (stdio by default)')
  .option('--stdio', 'serve over stdio (default)')
  .option('--http [port]', 'serve Streamable HTTP on this port (default 3333)', port)
  .option('--host <address>', 'address to bind for --http (default 127.0.0.1)')
  .option(
    '--catalog <mode>',
    'static: list every tool (default); dynamic: list search_tools, describe_tools and call_tool (default $TOOLHOST_CATALOG or mcp.catalog)',
    catalogMode,
  )
  .action(async (opts: { stdio?: boolean; http?: number | true; host?: string; catalog?: string }) => {
    const host = await openHost(program.opts().config, opts.catalog);
    const logger = createLogger(host.config.logging?.level);
    const serverInfo = { name: 'toolhost', version: pkg.version };
    const http = host.config.http ?? {};
    const httpOptions = {
      host: opts.host ?? http.host,
      path: http.path,
      publicUrl: http.publicUrl,
      allowedOrigins: http.allowedOrigins,
      maxBodyBytes: http.maxBodyBytes,
      maxSessionsPerUser: http.maxSessionsPerUser,
      maxSessions: http.maxSessions,
      sessionIdleSeconds: http.sessionIdleSeconds,
      accessTokens: AccessTokens.fromConfig(host.config, process.env),
      logger,
      serverInfo,
    };
    const closers: (() => Promise<void>)[] = [];
    // Each transport's modules load only when it is used (the Streamable HTTP server's cost
    // stays off the stdio start-up path, and the other way round).
    if (opts.http !== undefined && !opts.stdio) {
      const { serveHttp } = await import('./mcp/serve-http.js');
      const handle = await serveHttp(host, {
        ...httpOptions,
        port: opts.http === true ? (http.port ?? 3333) : opts.http,
      });
      logger.info({ url: handle.url, tools: host.listTools().length }, 'listening');
      closers.push(handle.close);
    } else {
      if (host.oauthProviders.length > 0) {
        // Over stdio there is no HTTP server, yet browsers must reach the OAuth callback.
        const { serveHttp } = await import('./mcp/serve-http.js');
        const callbacks = await serveHttp(host, { ...httpOptions, port: http.port ?? 3333, mcp: false });
        logger.info({ url: callbacks.url }, 'serving OAuth callbacks');
        closers.push(callbacks.close);
      }
      const { serveStdio } = await import('./mcp/serve-stdio.js');
      const handle = await serveStdio(host, serverInfo);
      logger.info({ tools: host.listTools().length }, 'serving on stdio');
      closers.push(handle.close);
    }
    const close = async () => {
      for (const c of closers) await c();
    };
    // In-flight calls finish (or are cancelled at the grace deadline) before transports close.
    const stop = async () => {
      logger.info('shutting down');
      await host.close().catch(() => {});
      await close().catch(() => {});
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('list')
  .description('print the tool catalog')
  .option('--json', 'print the full catalog as JSON (names, descriptions, input schemas, hints)')
  .action(async (opts: { json?: boolean }) => {
    const host = await openHost(program.opts().config);
    const tools = host.listTools();
    if (opts.json) process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
    else {
      for (const t of tools)
        process.stdout.write(
          `${t.name}${t.annotations.readOnlyHint ? ' (read-only)' : ''}\n  ${t.description}\n`,
        );
      process.stdout.write(`${tools.length} tools\n`);
    }
    await host.close();
  });

program
  .command('call')
  .description('call one tool and print its outcome as JSON')
  .argument('<name>', 'canonical tool name, e.g. CrmEventsApi.ListEventTypes')
  .option('--args <json>', 'arguments as a JSON object', '{}')
  .option('--user <id>', 'user whose credentials to use')
  .action(async (name: string, opts: { args: string; user?: string }) => {
    let args: unknown;
    try {
      args = JSON.parse(opts.args);
    } catch (e) {
      program.error(`--args is not valid JSON: ${(e as Error).message}`);
    }
    const host = await openHost(program.opts().config);
    const outcome = await host.callTool(name, args, { userId: opts.user });
    process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    await host.close();
    process.exitCode = outcome.ok ? 0 : 1;
  });

program.parseAsync().catch((e: unknown) => {
  process.stderr.write(`toolhost: ${(e as Error).message}\n`);
  process.exit(1);
});
