import { escapeUnseen } from '@toolhost/engine/internal';
import { SHARED_STORE } from '../assemble-host.js';
import { frontDoorChecks } from '../auth/front-door/front-door-doctor.js';
import { containerOf, type Host } from '../host.js';
import type { ToolSetReadiness } from '../readiness.js';
import { resolveService } from '../services.js';
import { sharedStoreUrl } from '../store/redis-url.js';
import { cheapestRead, registeredToolSets } from './cheapest-read.js';
import { emptyCatalogMessage } from './empty-catalog.js';

/** Whether this host agrees with Redis on the salt tokens are sealed with; nothing without Redis. */
async function saltSection(host: Host): Promise<Section> {
  if (!containerOf(host).isRegistered(SHARED_STORE, true)) return { lines: [], ok: true };
  const { saltReport } = await import('@toolhost/redis-store');
  const salt = await saltReport(resolveService(containerOf(host), SHARED_STORE));
  return { lines: ['', ...salt.lines], ok: salt.ok };
}

export interface DoctorReport {
  text: string;
  /** Some tool is served, and every loaded tool set can be called (and, with --live, answered). */
  healthy: boolean;
}

/** One call of the set's cheapest read, through the base URL the configuration gives it. */
async function liveLine(host: Host, set: ToolSetReadiness): Promise<{ line: string; ok: boolean }> {
  const definition = registeredToolSets(host).get(set.toolSet);
  const probe = definition && cheapestRead(host, definition);
  if (!probe) {
    return {
      line: '    live: not checked: the set has no read-only tool that needs no argument (its credentials are tried by the first real call)',
      ok: true,
    };
  }
  const outcome = await host.callTool(probe.tool, {});
  if (outcome.ok) {
    const status = outcome.kind === 'response' ? `HTTP ${outcome.status}` : 'schema';
    return { line: `    live: ${probe.tool} (${probe.request}) answered ${status}`, ok: true };
  }
  return {
    line: `    live: ${probe.tool} (${probe.request}) failed: ${outcome.error.code}: ${outcome.error.message}`,
    ok: false,
  };
}

/** Lines of the report, and whether what they found is healthy. */
interface Section {
  lines: string[];
  ok: boolean;
}

/**
 * What a person checks first: which config is in effect, which plugins were found where, and
 * for each tool set whether its credentials are set (never their values); with `live`, one
 * read-only call per ready tool set.
 */
export async function doctorReport(
  host: Host,
  options: { configFile?: string; live?: boolean; env?: NodeJS.ProcessEnv },
): Promise<DoctorReport> {
  const env = options.env ?? process.env;
  const sections: Section[] = [
    pluginSection(host, options.configFile),
    await toolSetSection(host, options.live === true),
    await tokenSection(host, env),
    await frontDoorSection(host, env),
    await saltSection(host),
  ];
  const healthy = sections.every((section) => section.ok);
  const lines = sections.flatMap((section) => section.lines);
  lines.push(
    '',
    healthy
      ? 'Everything is ready.'
      : host.listTools().length === 0
        ? 'No tool can be served: see above.'
        : 'Some checks failed: see above.',
  );
  // Names, paths and values from the config, the environment, plugins and the store, escaped
  // line by line at the one place they are written: none can rewrite or reorder a line.
  return { text: `${lines.map(escapeUnseen).join('\n')}\n`, healthy };
}

/** The config in effect and the plugins found (a package that cannot be imported is named, and the rest go on). */
function pluginSection(host: Host, configFile: string | undefined): Section {
  const lines = [
    `Config: ${configFile ?? 'none (defaults, environment and flags)'}`,
    host.pluginSearch.discovered
      ? `Plugins: discovered in ${host.pluginSearch.directories.join(', ')}`
      : 'Plugins: named by the configuration, --plugins or TOOLHOST_PLUGINS',
  ];
  for (const p of host.plugins)
    lines.push(`  ${p.name}@${p.version}: ${p.toolSet} (contract ${p.contractVersion})`);
  for (const u of host.pluginSearch.unloadable) lines.push(`  ${u.name}: CANNOT BE LOADED: ${u.reason}`);
  return { lines, ok: host.pluginSearch.unloadable.length === 0 };
}

/** Each tool set's readiness, with its live call's outcome where asked. */
async function toolSetSection(host: Host, live: boolean): Promise<Section> {
  const lines = ['', 'Tool sets:'];
  let ok = true;
  const sets = await host.serving.readiness();
  // Nothing to serve is no healthy state: every client would see an empty tool list.
  if (host.listTools().length === 0) {
    ok = false;
    lines.push(`  none. ${emptyCatalogMessage(host)}`);
  }
  // A set the configuration hides entirely serves nothing: no verdict, one line naming it.
  const hidden = sets.filter((set) => set.tools === 0);
  for (const set of sets.filter((s) => s.tools > 0)) {
    ok &&= set.ready;
    // The live call runs first, so that the verdict above the details says what it found.
    const checked = live && set.ready ? await liveLine(host, set) : undefined;
    if (checked) ok &&= checked.ok;
    const verdict = !set.ready ? 'NOT READY' : checked && !checked.ok ? 'LIVE CHECK FAILED' : 'ready';
    lines.push(`  ${set.toolSet} (${set.tools} tools): ${verdict}`);
    for (const c of set.checks) lines.push(`    ${c.ok ? 'ok' : 'missing'}: ${c.what}: ${c.detail}`);
    if (checked) lines.push(checked.line);
  }
  if (hidden.length > 0)
    lines.push(
      `  Not exposed (the configuration hides all their tools): ${hidden.map((s) => s.toolSet).join(', ')}`,
    );
  return { lines, ok };
}

/** Where OAuth tokens are kept. The host started, so a configured Redis answered and TOOLHOST_TOKEN_KEY is set. */
async function tokenSection(host: Host, env: NodeJS.ProcessEnv): Promise<Section> {
  if (host.oauthProviders.length === 0) return { lines: [], ok: true };
  const redisUrl = sharedStoreUrl(host.config, env);
  const line = redisUrl
    ? `OAuth tokens: shared by replicas in ${(await import('@toolhost/redis-store')).describeSharedStore(redisUrl, host.config.store)}, encrypted with TOOLHOST_TOKEN_KEY.`
    : env.TOOLHOST_TOKEN_KEY
      ? 'OAuth tokens: kept encrypted on disk (TOOLHOST_TOKEN_KEY is set).'
      : 'OAuth tokens: kept in memory only and lost at restart; set TOOLHOST_TOKEN_KEY (16+ characters) to keep them.';
  return { lines: ['', line], ok: true };
}

/** The front door's checks (MCP authorization), where it is configured. */
async function frontDoorSection(host: Host, env: NodeJS.ProcessEnv): Promise<Section> {
  const checks = await frontDoorChecks(host.config, env);
  if (checks.length === 0) return { lines: [], ok: true };
  return {
    lines: [
      '',
      'Front door (MCP authorization):',
      ...checks.map((c) => `  ${c.ok ? 'ok' : 'problem'}: ${c.line}`),
    ],
    ok: checks.every((c) => c.ok),
  };
}
