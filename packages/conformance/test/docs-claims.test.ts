import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, loadConfigFile } from '@toolhost/host';
import { hostCliPath, type SpawnedHost, spawnHost } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginPackages } from '../src/plugins.js';
import { publishedPackages, root } from './pack-workspace.js';

// Sentences of the README and docs that a test can hold to the product.
const read = (file: string) => readFileSync(join(root, file), 'utf8').replace(/\s+/g, ' ');

const helps = new Map<string, string>();
/** One section of a `--help`: each option's long flag, or each command's name. */
function helpSection(args: string[], title: string): string[] {
  const key = args.join(' ');
  const help =
    helps.get(key) ??
    execFileSync(process.execPath, [hostCliPath(), ...args, '--help'], { encoding: 'utf8' });
  helps.set(key, help);
  const section = help.split(`\n${title}\n`)[1]?.split('\n\n')[0] ?? '';
  const entries = section.split('\n').filter((line) => /^ {2}\S/.test(line));
  const first = title === 'Options:' ? /--[\w-]+/ : /[\w-]+/;
  return entries.map((line) => first.exec(line)?.[0] ?? '');
}

let host: SpawnedHost;
beforeAll(async () => {
  host = await spawnHost({ plugins: pluginPackages() }, { env: {} });
});
afterAll(() => host?.close());

describe('what the docs say', () => {
  it('the dynamic catalog lists as many tools as the README says, the three discovery tools among them', async () => {
    const { tools } = await host.client.listTools();
    const discovery = ['search_tools', 'describe_tools', 'call_tool'];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(discovery));
    // The static count too, from the plugins' own tools and the previews listed beside them.
    const plugins = await Promise.all(pluginPackages().map(async (name) => (await import(name)).default));
    const inProcess = await createHost({}, { plugins, env: {} });
    const previews = tools.filter((t) => !discovery.includes(t.name)).length;
    const all = inProcess.listTools().length + previews;
    await inProcess.close(0);
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'];
    expect(read('README.md')).toContain(
      `(all five sets: ${all} with the ${words[previews]} preview tools) ${words[tools.length]} tools instead`,
    );
  });

  it("the README's config example starts a host as written", async () => {
    // Copied as the newcomer's first config file: a tool set its `plugins` leave out stopped the start.
    const example = /```yaml\n([\s\S]*?)```/.exec(readFileSync(join(root, 'README.md'), 'utf8'))?.[1];
    const file = join(mkdtempSync(join(tmpdir(), 'readme-config-')), 'toolhost.config.yaml');
    writeFileSync(file, example ?? '');
    const { config, dir } = loadConfigFile(file);
    const fromExample = await createHost(config, { configDir: dir, pluginDirs: [root], env: {} });
    expect(new Set(fromExample.listTools().map((t) => t.toolSet))).toEqual(new Set(['CrmEventsApi']));
    await fromExample.close(0);
  });

  it("the README's CLI section names every command and option `toolhost --help` lists", () => {
    // It left out new-plugin, connections and describe --schema, which a newcomer finds only by --help.
    const block =
      /## CLI\n\n```\n([\s\S]*?)```/.exec(readFileSync(join(root, 'README.md'), 'utf8'))?.[1] ?? '';
    const [commandLines, everyCommand = ''] = block.split('Options of every command:');
    const ownOptions = (args: string[]) => helpSection(args, 'Options:').filter((o) => o !== '--help');
    for (const option of helpSection([], 'Options:').filter((o) => !['--help', '--version'].includes(o))) {
      expect(everyCommand, option).toContain(` ${option} `);
    }
    for (const command of helpSection([], 'Commands:').filter((c) => c !== 'help')) {
      const lines = commandLines?.split('\n').filter((l) => l.startsWith(`toolhost ${command} `)) ?? [];
      expect(lines, command).not.toEqual([]);
      const subcommands = helpSection([command], 'Commands:').filter((c) => c !== 'help');
      for (const sub of subcommands) {
        const subLines = lines.filter((l) => l.startsWith(`toolhost ${command} ${sub} `));
        expect(subLines, `${command} ${sub}`).not.toEqual([]);
        for (const option of ownOptions([command, sub])) expect(subLines.join(' '), option).toContain(option);
      }
      for (const option of ownOptions([command]))
        expect(lines.join(' '), `${command} ${option}`).toContain(option);
    }
  });

  it("docs/embedding.md's outcome comment names every kind of outcome callTool answers", () => {
    // It named `response` alone, and a mode tool's get_request_schema answers `schema`.
    const outcome = readFileSync(join(root, 'packages/core/src/tool-outcome.ts'), 'utf8');
    const kinds = [...outcome.matchAll(/kind: '(\w+)'/g)].map((m) => m[1]);
    expect(kinds.length).toBeGreaterThan(1);
    const comment =
      /\/\/ outcome:[^`]*/.exec(readFileSync(join(root, 'docs/embedding.md'), 'utf8'))?.[0] ?? '';
    for (const kind of kinds) expect(comment, kind).toContain(`kind: '${kind}'`);
  });

  it('`pnpm start` takes the port from TOOLHOST_PORT, as the port-in-use message tells', async () => {
    // A fixed port in the script made the message's TOOLHOST_PORT and http.port do nothing.
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    const [command, ...args] = pkg.scripts.start.split(' ');
    expect(command).toBe('node');
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', TOOLHOST_PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let logs = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        logs += c.toString();
        const m = /"url":"([^"]+)"/.exec(logs);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`pnpm start exited ${code}: ${logs}`)));
    }).finally(() => child.kill('SIGTERM'));
    expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
  });

  it('every plugin peers on @toolhost/core with the range docs/releasing.md names', () => {
    const core = JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')) as {
      version: string;
    };
    const plugins = publishedPackages().filter((p) => p.startsWith('plugin-'));
    expect(plugins).toHaveLength(5);
    for (const dir of plugins) {
      const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as {
        peerDependencies: Record<string, string>;
      };
      // `workspace:^` is packed (and published) as `^<core's version>`.
      expect(pkg.peerDependencies['@toolhost/core'], dir).toBe('workspace:^');
    }
    expect(read('docs/releasing.md')).toContain(
      `\`^${core.version}\` in the workspace before the first release`,
    );
  });
});
