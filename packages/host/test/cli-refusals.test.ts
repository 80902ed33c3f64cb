import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { cli } from './support.js';

let upstream: RecordingUpstream;
let dir: string;
let configFile: string;
const echo = () => ({ plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } });

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  dir = mkdtempSync(join(tmpdir(), 'toolhost-cli-refusals-'));
  configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(echo()));
});
afterAll(() => upstream.close());

describe('a config file past 1 MiB', () => {
  it('is refused by every command that reads --config, reading no further, naming the file and the bound', async () => {
    const commands = [
      ['list'],
      ['doctor'],
      ['call', 'EchoApi.GetItem'],
      ['serve', '--stdio'],
      ['serve', '--http', '0'],
    ];
    for (const command of commands) {
      const r = await cli(['--config', '/dev/zero', ...command]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "toolhost: The config file '/dev/zero' holds more than 1048576 bytes (1 MiB), the most a config or secrets file may hold.",
      );
    }
    // A file of valid JSON padded past the bound was read whole and served.
    const padded = join(dir, 'padded.json');
    writeFileSync(padded, JSON.stringify(echo()).padEnd(1024 * 1024 + 1, ' '));
    const r = await cli(['--config', padded, 'list']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toContain(`The config file '${padded}' holds more than 1048576 bytes (1 MiB)`);
  });

  it('still takes a config from a pipe that ends, however it arrives in pieces', async () => {
    const fifo = join(dir, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    // Larger than a pipe's buffer, so that it is read in several pieces.
    createWriteStream(fifo).end(JSON.stringify(echo()).padEnd(300_000, ' '));
    const r = await cli(['--config', fifo, 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('EchoApi.GetItem (read-only)');
  });
});

describe('text someone gave, echoed in an error', () => {
  it('shows its control and format characters escaped, wherever it came from', async () => {
    const file = join(dir, 'control.json');
    writeFileSync(file, JSON.stringify({ ...echo(), tools: { toolSets: ['Echo\rApi\u202e'] } }));
    const value = await cli(['--config', file, 'list']);
    expect(value.code).toBe(1);
    expect(value.stderr).toContain("'Echo\\rApi\\u202e' is not a loaded tool set");
    writeFileSync(file, JSON.stringify({ ...echo(), 'tool\rSets': {} }));
    const key = await cli(['--config', file, 'list']);
    expect(key.stderr).toContain("unknown key 'tool\\rSets' (did you mean 'toolSets'?)");
    writeFileSync(file, JSON.stringify({ ...echo(), logging: { level: 'info\r\u0007' } }));
    const enumValue = await cli(['--config', file, 'list']);
    expect(enumValue.stderr).toContain("'logging.level' is 'info\\r\\u0007'; expected one of");
    const env = await cli(['--config', configFile, 'list'], { TOOLHOST_READ_ONLY: 'yes\rno' });
    expect(env.stderr).toContain("TOOLHOST_READ_ONLY is 'yes\\rno'; use 1 or 0");
    const name = await cli(['--config', configFile, 'describe', 'EchoApi.Get\rItem']);
    expect(name.stderr).toContain("No tool named 'EchoApi.Get\\rItem' is loaded.");
    for (const r of [value, key, enumValue, env, name]) {
      expect(r.code).toBe(1);
      for (const raw of ['\r', '\u0007', '\u202e']) expect(r.stderr).not.toContain(raw);
    }
  });
});

describe("commander's own errors", () => {
  it('show what was typed with its control and bidi characters escaped, the usage lines kept', async () => {
    const option = await cli(['--bogus\u001b[31m', 'list']);
    expect(option.stderr).toBe(
      "error: unknown option '--bogus\\u001b[31m'\nUsage: toolhost [options] [command]\n(toolhost --help for more)\n",
    );
    const command = await cli(['\u202eevil']);
    expect(command.stderr).toContain("error: unknown command '\\u202eevil'\n");
    const choice = await cli(['serve', '--catalog', 'all\u001b[2J\r']);
    expect(choice.stderr).toContain("argument 'all\\u001b[2J\\r' is invalid.");
    // A subcommand's too: it writes its errors as the command it is under does.
    const nested = await cli(['connections', 'list', '--us\u001b[8m']);
    expect(nested.stderr).toContain("error: unknown option '--us\\u001b[8m'\n");
    expect(nested.stderr).toContain('Usage: toolhost connections list [options]\n');
    for (const r of [option, command, choice, nested]) {
      expect(r).toMatchObject({ code: 1, stdout: '' });
      for (const raw of ['\u001b', '\u202e', '\r']) expect(r.stderr).not.toContain(raw);
    }
  });
});

describe('call --args', () => {
  it('refuses anything but a JSON object, naming --args, and sends nothing', async () => {
    const sent = upstream.requests.length;
    const values = { null: 'null', '[]': 'an array', '[{"item_id":"i1"}]': 'an array', '5': 'a number' };
    for (const [args, kind] of Object.entries({ ...values, '"i1"': 'a string', true: 'a boolean' })) {
      const r = await cli(['--config', configFile, 'call', 'EchoApi.GetItem', '--args', args], {
        ECHO_AUTH_TOKEN: 'tok-cli',
      });
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toContain(`--args must be a JSON object of the tool's parameters`);
      expect(r.stderr).toContain(`not ${kind}.`);
    }
    expect(upstream.requests.length).toBe(sent);
  });

  it('says where --args does not parse without quoting it back', async () => {
    const r = await cli([
      '--config',
      configFile,
      'call',
      'EchoApi.GetItem',
      '--args',
      '{"item_id":pw-\r0123}',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "--args is not valid JSON: expected a value after ':' at line 1, column 12, found 'p'",
    );
    expect(r.stderr).not.toContain('0123');
  });
});

describe('connections of a provider with a static token', () => {
  const envToken = 'static-env-token-0123456789';
  const configToken = 'static-config-token-9876543210';
  const configWith = (name: string, auth?: object) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify({ ...echo(), ...(auth ? { auth } : {}) }));
    return file;
  };
  const fromEnv = () => configWith('static-env.json');
  const fromConfig = () =>
    configWith('static-config.json', { providers: { 'echo-auth': { token: configToken } } });
  const both = 'ECHO_AUTH_TOKEN, which overrides auth.providers.echo-auth.token';
  // Where the token is set, as the messages name it, and every place to remove it from.
  const cases = () =>
    [
      [fromEnv(), { ECHO_AUTH_TOKEN: envToken }, 'ECHO_AUTH_TOKEN', 'ECHO_AUTH_TOKEN'],
      [fromConfig(), {}, 'auth.providers.echo-auth.token', 'auth.providers.echo-auth.token'],
      [
        fromConfig(),
        { ECHO_AUTH_TOKEN: envToken },
        both,
        'ECHO_AUTH_TOKEN and auth.providers.echo-auth.token',
      ],
    ] as const;

  it('says in revoke and doctor every place the token is set, and how to stop using it, never the token', async () => {
    for (const [file, env, where, places] of cases()) {
      const r = await cli(
        ['--config', file, 'connections', 'revoke', '--user', 'carol', '--provider', 'echo-auth'],
        env,
      );
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toBe(
        `toolhost: 'echo-auth' is configured with a static token (set in ${where}), not OAuth: there is no stored connection to revoke. To stop using the token, unset or remove ${places} and restart the host; revoke it at the vendor to end it everywhere.\n`,
      );
      const doctor = await cli(['--config', file, 'doctor'], env);
      expect(doctor.stdout).toContain(`ok: auth provider echo-auth: static token set in ${where}\n`);
      for (const token of [envToken, configToken]) expect(doctor.stdout + doctor.stderr).not.toContain(token);
    }
    // A provider with neither a token nor an OAuth client, or none of that name, is named as before.
    const unset = await cli([
      '--config',
      fromEnv(),
      'connections',
      'revoke',
      '--user',
      'carol',
      '--provider',
      'echo-auth',
    ]);
    expect(unset.stderr).toBe(
      "toolhost: No OAuth provider 'echo-auth' is configured (OAuth providers: none).\n",
    );
    const unknown = await cli(['--config', fromEnv(), 'connections', 'list', '--provider', 'nope']);
    expect(unknown.stderr).toBe(
      "toolhost: No OAuth provider 'nope' is configured (OAuth providers: none).\n",
    );
  });

  it("lists the provider as every user's static token, where it is set, in text and JSON, never the token", async () => {
    for (const [file, env, where] of cases()) {
      // Every user's, so listed for any one user too.
      const filters = where === both ? [[], ['--provider', 'echo-auth'], ['--user', 'carol']] : [[]];
      for (const filter of filters) {
        const text = await cli(['--config', file, 'connections', 'list', ...filter], env);
        expect(text).toMatchObject({ code: 0, stderr: '' });
        expect(text.stdout).toBe(
          `(every user)  echo-auth  static token set in ${where}\n0 connections, 1 static token\n`,
        );
      }
      const json = await cli(['--config', file, 'connections', 'list', '--json'], env);
      expect(JSON.parse(json.stdout)).toEqual([{ providerId: 'echo-auth', staticToken: true, setIn: where }]);
      for (const token of [envToken, configToken]) expect(json.stdout + json.stderr).not.toContain(token);
    }
    // Without a token the provider is listed by nothing.
    expect((await cli(['--config', fromEnv(), 'connections', 'list'])).stdout).toBe('0 connections\n');
  });

  it('says a placeholder left as the token is one, in list and revoke, as doctor does', async () => {
    const env = { ECHO_AUTH_TOKEN: '<token>' };
    const list = await cli(['--config', fromEnv(), 'connections', 'list'], env);
    expect(list.stdout).toBe(
      '(every user)  echo-auth  static token set in ECHO_AUTH_TOKEN, holding a placeholder, not a real value: its calls are refused until it is replaced\n0 connections, 1 static token\n',
    );
    const json = await cli(['--config', fromEnv(), 'connections', 'list', '--json'], env);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        providerId: 'echo-auth',
        staticToken: true,
        setIn: 'ECHO_AUTH_TOKEN',
        problem: 'a placeholder, not a real value',
      },
    ]);
    const revoke = await cli(
      ['--config', fromEnv(), 'connections', 'revoke', '--user', 'carol', '--provider', 'echo-auth'],
      env,
    );
    expect(revoke.stderr).toMatch(
      /^toolhost: 'echo-auth' is configured with a static token \(set in ECHO_AUTH_TOKEN\), not OAuth: .* That token holds a placeholder, not a real value: its calls are refused until it is replaced\.\n$/,
    );
  });
});
