import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findConfig } from '../src/config/find-config.js';
import { CONFIG_FILE_BYTES, loadConfigFile, validateConfig } from '../src/config/load-config.js';
import { resolveSecrets, tokenEnvName } from '../src/config/resolve-secrets.js';

function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-config-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('config validation', () => {
  it('names an unknown key with its path', () => {
    expect(() => validateConfig({ toolSets: { CrmEventsApi: { baseURL: 'x' } } })).toThrow(
      /unknown key 'toolSets\.CrmEventsApi\.baseURL'/,
    );
  });

  it('suggests the key meant, whatever the case or a slip, at any depth', () => {
    expect(() => validateConfig({ toolsets: {} })).toThrow(
      "unknown key 'toolsets' (did you mean 'toolSets'?)",
    );
    expect(() => validateConfig({ toolSets: { GridApi: { baseURL: 'http://127.0.0.1:1' } } })).toThrow(
      "unknown key 'toolSets.GridApi.baseURL' (did you mean 'toolSets.GridApi.baseUrl'?)",
    );
    expect(() => validateConfig({ auth: { providers: { p: { clientID: 'c' } } } })).toThrow(
      "(did you mean 'auth.providers.p.clientId'?)",
    );
    expect(() => validateConfig({ nonsense: 1 })).toThrow(/unknown key 'nonsense'$/);
  });

  it('lists the accepted values of an enum and names the environment variable that sets the key', () => {
    expect(() => validateConfig({ mcp: { catalog: 'lazy' } })).toThrow(
      `'mcp.catalog' is 'lazy'; expected one of "auto", "static", "dynamic"; set in the config file or with TOOLHOST_CATALOG`,
    );
    expect(() => validateConfig({ logging: { level: 'loud' } })).toThrow(
      /expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent"; set in the config file or with TOOLHOST_LOG_LEVEL/,
    );
  });

  it('names a key of the wrong type', () => {
    expect(() => validateConfig({ tools: { readOnly: 'yes' } })).toThrow(/'tools\.readOnly' must be boolean/);
  });

  it('rejects a base URL that is not a URL', () => {
    expect(() => validateConfig({ toolSets: { X: { baseUrl: 'not a url' } } })).toThrow(
      /toolSets\.X\.baseUrl/,
    );
  });

  it('takes a pacing override as a rate or false, and nothing else', () => {
    expect(() => validateConfig({ toolSets: { GridApi: { pacing: false } } })).not.toThrow();
    expect(() =>
      validateConfig({ toolSets: { GridApi: { pacing: { requestsPerSecond: 20 } } } }),
    ).not.toThrow();
    expect(() => validateConfig({ toolSets: { GridApi: { pacing: true } } })).toThrow(
      /toolSets\.GridApi\.pacing/,
    );
    expect(() => validateConfig({ toolSets: { GridApi: { pacing: { requestsPerSecond: 0 } } } })).toThrow(
      /toolSets\.GridApi\.pacing/,
    );
  });

  it('accepts a full config', () => {
    const config = {
      plugins: ['@toolhost/plugin-crm-events'],
      toolSets: { CrmEventsApi: { baseUrl: 'http://127.0.0.1:1', enabled: true } },
      tools: { allow: ['CrmEventsApi.*'], deny: [], readOnly: true },
      auth: { providers: { 'crm-auth-provider': { token: 't' } } },
      secrets: { CDP_API_KEY: 'k' },
      mcp: { nameSeparator: '__' },
      http: { host: '127.0.0.1', port: 3333 },
    };
    expect(validateConfig(config)).toBe(config);
  });
});

describe('config files', () => {
  it('reads YAML', () => {
    const file = tempFile(
      'toolhost.config.yaml',
      'plugins:\n  - "@toolhost/plugin-crm-events"\ntools:\n  readOnly: true\n',
    );
    expect(loadConfigFile(file).config).toEqual({
      plugins: ['@toolhost/plugin-crm-events'],
      tools: { readOnly: true },
    });
  });

  it('says a config file that is not there is not there, not ENOENT', () => {
    const file = join(dirname(tempFile('other.json', '{}')), 'toolhost.config.yml');
    expect(() => loadConfigFile(file)).toThrow(
      /^Cannot read config file '.*toolhost\.config\.yml': no such file$/,
    );
  });

  it('reports a parse error with the file name', () => {
    const file = tempFile('bad.json', '{ "plugins": [ }');
    expect(() => loadConfigFile(file)).toThrow(/Cannot parse config file .*bad\.json/);
  });

  it('says where a config file does not parse, never quoting it: the text may be a secret', () => {
    const secret = 'sk-live-0123456789abcdef';
    const files = [
      // An unquoted value: V8 quotes the text around it.
      [
        'unquoted.json',
        `{"secrets":{\n  "CRM_KEY":${secret}}}`,
        /: expected a value after ':' at line 2, column 13, found 's'$/,
      ],
      ['short.json', secret, /: expected a JSON value at line 1, column 1, found 's'$/],
      [
        'open.json',
        `{"secrets":{"CRM_KEY":"${secret}`,
        /: unterminated string starting at line 1, column 23$/,
      ],
      // yaml quotes the line at fault, with a caret under it, and an alias by its name.
      ['open.yaml', `secrets:\n  CRM_KEY: "${secret}\n`, /: missing char at line 3, column 1$/],
      [
        'twice.yaml',
        `secrets:\n  CRM_KEY: ${secret}\n  CRM_KEY: x\n`,
        /: duplicate key at line 3, column 3$/,
      ],
      ['alias.yaml', `secrets:\n  CRM_KEY: *${secret}\n`, /: an alias names no anchor set before it$/],
      // An unknown tag was only warned of (the line quoted on stderr) and read as ''.
      ['tag.yaml', `secrets:\n  CRM_KEY: !${secret}\n`, /: tag resolve failed at line 2, column 12$/],
    ] as const;
    for (const [name, text, says] of files) {
      const message = (() => {
        try {
          loadConfigFile(tempFile(name, text));
        } catch (e) {
          return (e as Error).message;
        }
      })();
      expect(message).toMatch(says);
      expect(message).not.toContain('0123');
    }
  });

  it('reads a JSON file that starts with a byte order mark, as Windows editors write it', () => {
    const file = tempFile('bom.json', '\uFEFF{"tools":{"readOnly":true}}');
    expect(loadConfigFile(file).config).toEqual({ tools: { readOnly: true } });
  });

  it('escapes a control character the parser names, rather than writing it out', () => {
    const message = (() => {
      try {
        loadConfigFile(tempFile('control.json', '{"plugins":\u0001}'));
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(message).toMatch(
      /control\.json': expected a value after ':' at line 1, column 12, found '\\u0001'$/,
    );
    expect(message).not.toContain('\u0001');
  });

  it('reads a config or secrets file of up to 1 MiB and refuses a larger one, naming it and the bound', () => {
    // Valid JSON, padded with spaces: it parsed, however large; /dev/zero read until memory ran out.
    const padded = (bytes: number, json: string) => json.padEnd(bytes, ' ');
    const largest = tempFile('largest.json', padded(CONFIG_FILE_BYTES, '{"tools":{"readOnly":true}}'));
    expect(loadConfigFile(largest).config).toEqual({ tools: { readOnly: true } });
    const over = tempFile('over.json', padded(CONFIG_FILE_BYTES + 1, '{"tools":{"readOnly":true}}'));
    const bound = 'holds more than 1048576 bytes (1 MiB), the most a config or secrets file may hold.';
    expect(() => loadConfigFile(over)).toThrow(`The config file '${over}' ${bound}`);
    expect(() => loadConfigFile('/dev/zero')).toThrow(`The config file '/dev/zero' ${bound}`);
    const secrets = tempFile('secrets.json', padded(CONFIG_FILE_BYTES + 1, '{"CDP_API_KEY":"k-0123"}'));
    expect(() => resolveSecrets({ secretsFile: 'secrets.json' }, [], {}, dirname(secrets))).toThrow(
      `The secretsFile '${secrets}' ${bound}`,
    );
    expect(() => resolveSecrets({ secretsFile: '/dev/zero' }, [], {}, '/')).toThrow(
      `The secretsFile '/dev/zero' ${bound}`,
    );
  });

  it('finds toolhost.config.json in the working directory, else uses an empty config', () => {
    const file = tempFile('toolhost.config.json', '{"tools":{"deny":["*"]}}');
    const dir = join(file, '..');
    expect(findConfig(undefined, {}, dir).config).toEqual({ tools: { deny: ['*'] } });
    expect(findConfig(undefined, {}, tmpdir()).config).toEqual({});
  });

  it('refuses two config files in the working directory, naming both, unless one is named', () => {
    // It read the JSON one and ignored the YAML one a newcomer had just written beside it.
    const json = tempFile('toolhost.config.json', '{"tools":{"deny":["*"]}}');
    const dir = join(json, '..');
    writeFileSync(join(dir, 'toolhost.config.yaml'), 'tools: { readOnly: true }\n');
    expect(() => findConfig(undefined, {}, dir)).toThrow(
      `${json} and ${join(dir, 'toolhost.config.yaml')} are both config files: keep one, or use --config.`,
    );
    const named = join(dir, 'toolhost.config.yaml');
    expect(findConfig(named, {}, dir).config).toEqual({ tools: { readOnly: true } });
    expect(findConfig(undefined, { TOOLHOST_CONFIG: named }, dir).config).toEqual({
      tools: { readOnly: true },
    });
  });
});

describe('secrets and tokens', () => {
  it('prefers environment over config over the secrets file', () => {
    const file = tempFile('secrets.json', '{"A":"file","B":"file","C":"file"}');
    const dir = join(file, '..');
    const secrets = resolveSecrets(
      { secretsFile: 'secrets.json', secrets: { B: 'config', C: 'config' } },
      ['C'],
      { C: 'env' },
      dir,
    );
    expect(secrets).toEqual({ A: 'file', B: 'config', C: 'env' });
  });

  it('refuses a secrets file whose values are not all strings, naming the secret, never its value', () => {
    // YAML reads 0012 as 12 and a long digit run as a rounded number: another secret, sent silently.
    const yaml = tempFile('secrets.yaml', 'A: "0012"\nPIN: 0012\n');
    expect(() => resolveSecrets({ secretsFile: 'secrets.yaml' }, [], {}, dirname(yaml))).toThrow(
      `The secretsFile '${yaml}' gives 'PIN' a value that is not a string: quote it (YAML reads digits as a number).`,
    );
    const list = tempFile('list.json', '["k-0123"]');
    expect(() => resolveSecrets({ secretsFile: 'list.json' }, [], {}, dirname(list))).toThrow(
      `The secretsFile '${list}' must hold an object of named secrets.`,
    );
    const quotedYaml = tempFile('quoted.yaml', 'PIN: "0012"\n');
    expect(resolveSecrets({ secretsFile: 'quoted.yaml' }, [], {}, dirname(quotedYaml))).toEqual({
      PIN: '0012',
    });
  });

  it('reads only declared secret names from the environment', () => {
    expect(resolveSecrets({}, ['CDP_API_KEY'], { CDP_API_KEY: 'k', HOME: '/root' }, '/')).toEqual({
      CDP_API_KEY: 'k',
    });
  });

  it('maps provider ids to token variables', () => {
    expect(tokenEnvName('crm-auth-provider')).toBe('CRM_AUTH_PROVIDER_TOKEN');
  });
});
