#!/usr/bin/env node
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { escapeLines, escapeUnseen, parseProblem } from '@toolhost/engine/internal';
import { tokenFileNeedingKey } from './auth/build-auth-providers.js';
import { ENVIRONMENT_HELP } from './cli/environment-help.js';
import { type GlobalOptions, openHost } from './cli/open-host.js';
import { serve } from './cli/serve.js';
import { commaList, LOG_LEVELS } from './config/overrides.js';
import { disconnect, listConnections } from './connections.js';
import { sharedStoreUrl } from './store/redis-url.js';
import { ToolNameMap } from './tool-names.js';

const require = createRequire(import.meta.url);
const pkg = require('../package.json') as { version: string };
// Required, not imported: see docs/performance.md, "CommonJS packages at start".
const { Command, InvalidArgumentError, Option } = require('commander') as typeof import('commander');

// Output piped into `head` and the like closes early: that ends the command, it is no error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

const globs = (value: string, previous: string[] = []) => [...previous, ...commaList(value)];

const program = new Command('toolhost')
  .description('Serve SaaS API tool sets to AI agents over the Model Context Protocol.')
  .version(pkg.version)
  .option(
    '-c, --config <file>',
    'config file (JSON or YAML); default $TOOLHOST_CONFIG or ./toolhost.config.{json,yaml}',
  )
  .option(
    '--plugins <names>',
    'plugin packages or paths (from the working directory) to load instead of the config and discovery (comma-separated)',
    commaList,
  )
  .option('--allow-empty', 'start even when no tool is loaded (otherwise an error)')
  .option('--tool-sets <names>', 'expose only these tool sets (comma-separated)', commaList)
  .option('--read-only', 'expose only tools that change nothing upstream')
  .option('--confirm-writes', 'ask the person before any tool that changes data sends its request')
  .option(
    '--allow <globs>',
    'expose only tools matching these globs, e.g. "GridApi.List*" (repeatable)',
    globs,
  )
  .option('--deny <globs>', 'hide tools matching these globs, e.g. "*.Delete*" (repeatable)', globs)
  .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS))
  .addHelpText('after', ENVIRONMENT_HELP)
  // Set before any subcommand, which copies it: commander's errors quote the command line
  // (`unknown option '…'`), and what the terminal is sent of it is escaped, not run.
  .configureOutput({ writeErr: (text) => process.stderr.write(escapeLines(text)) });

const globalOptions = () => program.opts<GlobalOptions>();

program
  .command('serve')
  .description('serve the loaded tools over MCP (stdio by default)')
  .addOption(new Option('--stdio', 'serve over stdio (default)').conflicts('http'))
  .option(
    '--http [port]',
    'serve Streamable HTTP on this port (default $TOOLHOST_PORT, http.port or 3333)',
    port,
  )
  .option('--host <address>', 'address to bind for --http (default 127.0.0.1)')
  .addOption(
    new Option(
      '--catalog <mode>',
      'auto: static up to 100 tools, dynamic above (default); static: list every tool; dynamic: list search_tools, describe_tools and call_tool',
    ).choices(['auto', 'static', 'dynamic']),
  )
  .action(async (opts: { stdio?: boolean; http?: number | true; host?: string; catalog?: string }) => {
    const opened = await openHost({ ...globalOptions(), catalog: opts.catalog }).catch(async (e: Error) => {
      if (opts.http !== undefined) throw e;
      // Over stdio the client that started the host shows only what comes back on stdout.
      process.stderr.write(escapeLines(`toolhost: ${e.message}\n`));
      const { refuseOverStdio } = await import('./cli/refuse-over-stdio.js');
      await refuseOverStdio(e.message);
      process.exit(1);
    });
    await serve(opened.host, opened.logger, opts, { name: 'toolhost', version: pkg.version });
  });

program
  .command('list')
  .description('print the tool catalog')
  .option('--json', 'print the full catalog as JSON (names, descriptions, input schemas, hints)')
  .action(async (opts: { json?: boolean }) => {
    const { host } = await openHost(globalOptions());
    const tools = host.listTools();
    if (opts.json) process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
    else {
      for (const t of tools)
        process.stdout.write(`${t.name}${t.hints.readOnly ? ' (read-only)' : ''}\n  ${t.description}\n`);
      process.stdout.write(`${tools.length} tools\n`);
    }
    await host.close();
  });

program
  .command('describe')
  .description("print one tool's parameters and, for mode tools, its request body's fields")
  .argument(
    '<name>',
    'tool name, e.g. CrmEventsApi.SendEventData (or as over MCP, CrmEventsApi_SendEventData)',
  )
  .option('--schema', "print the request body's whole JSON Schema")
  .action(async (name: string, opts: { schema?: boolean }, command: typeof program) => {
    const { host } = await openHost(globalOptions());
    const names = new ToolNameMap(host.listTools(), host.config.mcp.nameSeparator);
    const tool = host.getTool(name) ?? host.getTool(names.canonicalName(name) ?? '');
    if (!tool) {
      const outcome = await host.callTool(name, {});
      await host.close();
      command.error(`toolhost: ${outcome.ok ? `no tool named '${name}'` : outcome.error.message}`);
    }
    const body = host.serving.requestBodySchema(tool!.name);
    const { describeTool } = await import('./cli/describe-tool.js');
    process.stdout.write(describeTool(tool!, names.mcpName(tool!.name), body, opts.schema));
    await host.close();
  });

program
  .command('call')
  .description('call one tool and print its outcome as JSON')
  .argument('<name>', 'canonical tool name, e.g. CrmEventsApi.ListEventTypes')
  .option('--args <json>', 'arguments as a JSON object', '{}')
  .option('--user <id>', 'user whose credentials to use')
  .action(async (name: string, opts: { args: string; user?: string }, command: typeof program) => {
    let args: unknown;
    try {
      args = JSON.parse(opts.args);
    } catch (e) {
      command.error(`--args is not valid JSON: ${parseProblem(e, opts.args)}`);
    }
    // The engine takes null for no arguments (an embedder's); typed here, it was a slip called as {}.
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      command.error(
        `--args must be a JSON object of the tool's parameters, e.g. '{"id":"1"}' ('{}' for none), not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`}.`,
      );
    const { host } = await openHost(globalOptions());
    const { confirmAtTerminal } = await import('@toolhost/write-safety');
    const outcome = await host.callTool(name, args, { userId: opts.user, confirm: confirmAtTerminal() });
    process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    await host.close();
    process.exitCode = outcome.ok ? 0 : 1;
  });

program
  .command('doctor')
  .description('check the config, the plugins and each tool set’s credentials (values are never shown)')
  .option('--live', 'also make one read-only call per ready tool set')
  .action(async (opts: { live?: boolean }) => {
    const { host, configFile } = await openHost({
      ...globalOptions(),
      allowEmpty: true,
      unloadablePlugins: 'skip',
    });
    // Loaded by its command only: the checks' modules stay off every other command's start.
    const { doctorReport } = await import('./cli/doctor.js');
    const report = await doctorReport(host, { configFile, live: opts.live });
    process.stdout.write(report.text);
    await host.close();
    process.exitCode = report.healthy ? 0 : 1;
  });

program
  .command('new-plugin')
  .description('write a new plugin package that builds, loads in the host and passes its catalog tests')
  .argument('<dir>', 'directory to create (new or empty), e.g. toolhost-plugin-widgets')
  .option('--name <package>', 'package name (default toolhost-plugin-<dir name>)')
  .option('--tool-set <name>', 'tool-set name (default from the package name, e.g. WidgetsApi)')
  .option('--vendor <name>', 'the vendor as people name it, e.g. "Widgets Inc."')
  .option(
    '--from-clone',
    'install the host, core and test kit packed from this toolhost clone, not npm (before a release)',
  )
  .action(
    async (dir: string, opts: { name?: string; toolSet?: string; vendor?: string; fromClone?: boolean }) => {
      const { newPlugin } = await import('./cli/new-plugin.js');
      const made = newPlugin(dir, opts);
      process.stdout.write(
        `Wrote ${made.name} (${made.toolSet}) in ${made.dir}:\n${made.files.map((f) => `  ${f}`).join('\n')}\nNext: ${made.warning ?? `cd ${dir} && npm install && npm test`}\n`,
      );
    },
  );

const connections = program
  .command('connections')
  .description("see and end users' OAuth connections (the stored tokens, never shown)");

connections
  .command('list')
  .description('list stored connections (user, provider, account, scopes, expiry) and static tokens')
  .option('--user <id>', 'only this user')
  .option('--provider <id>', 'only this auth provider')
  .option('--json', 'print as JSON')
  .action(async (opts: { user?: string; provider?: string; json?: boolean }) => {
    const { host, configFile } = await openHost(globalOptions());
    const unread = sharedStoreUrl(host.config, process.env)
      ? undefined
      : tokenFileNeedingKey(host.config, process.env, configFile ? dirname(configFile) : process.cwd());
    if (unread) {
      await host.close();
      program.error(
        `toolhost: the token file ${unread} cannot be read without TOOLHOST_TOKEN_KEY, the key it was written with: set it to list its connections.`,
      );
    }
    const filter = { userId: opts.user || undefined, providerId: opts.provider || undefined };
    const rows = await listConnections(host, filter);
    const fixed = host.serving.connections.staticTokens(filter);
    // User ids and accounts come from the store: escaped, in the JSON as escapes of the same data.
    if (opts.json) process.stdout.write(escapeLines(`${JSON.stringify([...rows, ...fixed], null, 2)}\n`));
    else {
      const lines = rows.map((r) => {
        const expiry = r.expiresAt ? `, access token expires ${new Date(r.expiresAt).toISOString()}` : '';
        const account = r.account ? `  account: ${r.account}` : '';
        return `${r.userId}  ${r.providerId}${account}  scopes: ${r.scopes.join(' ') || '(none)'}${expiry}`;
      });
      for (const f of fixed)
        lines.push(
          `(every user)  ${f.providerId}  static token${f.setIn ? ` set in ${f.setIn}` : ''}${f.problem ? `, holding ${f.problem}: its calls are refused until it is replaced` : ''}`,
        );
      const statics =
        fixed.length > 0 ? `, ${fixed.length} static token${fixed.length === 1 ? '' : 's'}` : '';
      lines.push(`${rows.length} connection${rows.length === 1 ? '' : 's'}${statics}`);
      process.stdout.write(`${lines.map(escapeUnseen).join('\n')}\n`);
    }
    await host.close();
  });

connections
  .command('revoke')
  .description("end a user's connection: revoked at the vendor where it offers that, and deleted here")
  .requiredOption('--user <id>', 'the user')
  .requiredOption('--provider <id>', 'the auth provider, e.g. crm-auth-provider')
  .action(async (opts: { user: string; provider: string }) => {
    const { host } = await openHost(globalOptions());
    const result = await disconnect(host, opts.user, opts.provider);
    await host.close();
    if (!result.existed) {
      process.stdout.write(`${escapeUnseen(`${opts.user} has no connection with ${opts.provider}.`)}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(
      `${escapeUnseen(`Disconnected ${opts.user} from ${opts.provider}${result.revokedAtVendor ? ' (revoked at the vendor)' : ' (the vendor was not told: it offers no revocation, or could not be reached)'}.`)}\n`,
    );
  });

// A mistake gets the command's one usage line, not the whole help it would scroll away.
function shortUsageAfterErrors(command: InstanceType<typeof Command>, path: string[] = []): void {
  const names = [...path, command.name()];
  command.showHelpAfterError(
    `Usage: ${names.join(' ')} ${command.usage()}\n(${names.join(' ')} --help for more)`,
  );
  for (const sub of command.commands) shortUsageAfterErrors(sub, names);
}
shortUsageAfterErrors(program);

program.parseAsync().catch((e: unknown) => {
  process.stderr.write(escapeLines(`toolhost: ${(e as Error).message}\n`));
  process.exit(1);
});
