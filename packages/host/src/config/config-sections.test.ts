import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { hostConfigSchema } from './config-schema.js';
import { CONFIG_SECTIONS, configProblems, rootConfigSchema, sectionSchema } from './config-sections.js';

// ajv-formats is CommonJS whose default export TypeScript's ESM view does not call.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv;
const ajv = () => addFormats(new Ajv({ allErrors: true, strict: false }));
const whole = ajv().compile(hostConfigSchema);
const parts = ajv();
const check = (section: string) =>
  parts.compile(section === 'root' ? rootConfigSchema : sectionSchema(section));

/** The errors of the whole schema, [] when valid. */
function wholeErrors(config: unknown) {
  return whole(config) ? [] : whole.errors;
}

describe('config checked by section', () => {
  it('checks every object section on its own and keeps the scalars in the root', () => {
    expect(CONFIG_SECTIONS).toEqual(expect.arrayContaining(['toolSets', 'auth', 'http', 'mcp', 'logging']));
    expect(CONFIG_SECTIONS).not.toContain('defaultUserId');
  });

  it.each([
    [
      'valid',
      { toolSets: { GridApi: { baseUrl: 'http://127.0.0.1:1', pacing: false } }, mcp: { catalog: 'static' } },
    ],
    ['not an object', 'toolSets'],
    ['an array', [1]],
    [
      'unknown keys at the root and in sections',
      { toolsets: {}, toolSets: { GridApi: { baseURL: 'x' } }, nonsense: 1 },
    ],
    [
      'errors in several sections and root scalars between them',
      {
        plugins: [''],
        http: { port: 'x', authorization: { mode: 'nope' } },
        toolSets: { X: { baseUrl: 'not a url', pacing: true } },
        defaultUserId: '',
        logging: { level: 'loud' },
        auth: { providers: { p: { clientID: 'c' } } },
        shutdownGraceSeconds: -1,
        mcp: { catalog: 'lazy', maxResultBytes: 'big' },
      },
    ],
    ['a section of the wrong type', { auth: 'yes', tools: { readOnly: 'yes' }, store: [] }],
  ])('reports what the whole schema reports, in its order: %s', (_name, config) => {
    expect(configProblems(config, check)).toEqual(wholeErrors(config));
  });
});
