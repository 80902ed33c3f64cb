import type { JsonSchema } from '@toolhost/core';
import { sampleValue } from '@toolhost/engine/internal';

export interface FuzzCase {
  label: string;
  args: unknown;
}

/** Values of the wrong type for a schema. */
function wrongTypes(schema: JsonSchema): unknown[] {
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  const all: [string, unknown][] = [
    ['string', 12345],
    ['integer', 'twelve'],
    ['number', 'NaN'],
    ['boolean', 'yes'],
    ['array', { not: 'an array' }],
    ['object', ['not', 'an', 'object']],
  ];
  const out = all.filter(([t]) => type.includes(t)).map(([, v]) => v);
  if (type.includes('integer')) out.push(1.5);
  return out;
}

/** Values outside enums, formats and bounds. */
function outOfBounds(schema: JsonSchema): unknown[] {
  const out: unknown[] = [];
  if (schema.enum) out.push('__not_a_member__');
  if (schema.format) out.push('definitely not a valid value ✗');
  if (typeof schema.minimum === 'number') out.push(schema.minimum - 1);
  if (typeof schema.maximum === 'number') out.push(schema.maximum + 1);
  if (typeof schema.maxLength === 'number') out.push('y'.repeat(schema.maxLength + 1));
  if (typeof schema.minLength === 'number' && schema.minLength > 0) out.push('');
  return out;
}

/** Strings that try to change the target of a request. */
export const HOSTILE_STRINGS = [
  '..',
  '.',
  '../../admin',
  'a/b',
  'x?y=1',
  'x#frag',
  '%2F..%2F',
  'a\r\nX-Injected: 1',
  '\u0000',
  'ünï/cödé',
];

/**
 * Malformed arguments for one tool, from its input schema: each case must be refused with a
 * clear error and must send nothing.
 */
export function malformedCases(inputSchema: JsonSchema): FuzzCase[] {
  const props = inputSchema.properties ?? {};
  // Execute-only parameters marked "Required for execute." are filled too, so execute cases
  // fail for the reason they are about.
  const required = [
    ...(inputSchema.required ?? []),
    ...Object.entries(props)
      .filter(([, s]) => typeof s.description === 'string' && s.description.endsWith('Required for execute.'))
      .map(([name]) => name),
  ];
  const valid: Record<string, unknown> = Object.fromEntries(
    required.map((name) => [name, sampleValue(props[name] ?? {}, name)]),
  );
  // Mode tools are fuzzed in execute, where every parameter counts.
  if (props.mode) valid.mode = 'execute';
  const cases: FuzzCase[] = [
    { label: 'array instead of arguments', args: [1, 2] },
    { label: 'string instead of arguments', args: 'arguments' },
    { label: 'unknown parameter', args: { ...valid, __proto_pollution__: { polluted: true } } },
  ];
  for (const name of inputSchema.required ?? []) {
    const { [name]: _gone, ...rest } = valid;
    cases.push({ label: `missing ${name}`, args: rest });
  }
  for (const [name, schema] of Object.entries(props)) {
    for (const value of wrongTypes(schema))
      cases.push({ label: `${name} of wrong type`, args: { ...valid, [name]: value } });
    for (const value of outOfBounds(schema))
      cases.push({ label: `${name} out of bounds`, args: { ...valid, [name]: value } });
  }
  if (props.mode) {
    const execute = { ...valid, mode: 'execute' };
    cases.push({ label: 'execute without request_body', args: execute });
    cases.push({ label: 'request_body not JSON', args: { ...execute, request_body: '{"unterminated": ' } });
    cases.push({
      label: 'request_body JSON of the wrong shape',
      args: { ...execute, request_body: '[1, "two", null]' },
    });
    // An object is a body too (models send one as often as its text); a number is neither.
    cases.push({
      label: 'request_body neither JSON text nor an object',
      args: { ...execute, request_body: 42 },
    });
    cases.push({
      label: 'request_body an object of the wrong shape',
      args: { ...execute, request_body: [1, 'two', null] },
    });
  }
  return cases;
}
