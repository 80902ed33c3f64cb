import type { JsonSchema } from './json-schema.js';
import type { AuthRequirement, ExecuteOnly, ParamDeclaration } from './tool-declaration.js';

/**
 * Declaration builders for the shapes every catalog repeats. They return plain declarations,
 * so a catalog can mix them with literal objects.
 */

/** Authorization through an auth provider; any one of `scopes` suffices. */
export function providerAuth(provider: string, ...scopes: string[]): AuthRequirement {
  return { kind: 'provider', provider, scopes };
}

/** A named secret (e.g. an API key), sent as the API expects it. */
export function secretAuth(secret: string, scheme: 'basic-username' | 'bearer'): AuthRequirement {
  return { kind: 'secret', secret, scheme };
}

type Extra = Omit<Partial<ParamDeclaration>, 'name' | 'in' | 'description' | 'schema'>;

function param(
  location: ParamDeclaration['in'],
  name: string,
  description: string,
  schema: JsonSchema,
  extra: Extra,
): ParamDeclaration {
  return { name, in: location, schema, description, ...extra };
}

/**
 * A path segment: required, or, in a mode tool, required only to execute
 * (`executeOnly: 'required'`). A string by default; the engine refuses empty and dot-segment
 * values itself, so no `minLength` is needed.
 */
export function pathParam(
  name: string,
  apiName: string | undefined,
  description: string,
  options: { executeOnly?: ExecuteOnly; schema?: JsonSchema } = {},
): ParamDeclaration {
  return param('path', name, description, options.schema ?? { type: 'string' }, {
    ...(apiName && apiName !== name ? { apiName } : {}),
    ...(options.executeOnly ? { executeOnly: options.executeOnly } : { required: true }),
  });
}

/** A query parameter (`apiName` when the API calls it otherwise). */
export function queryParam(
  name: string,
  description: string,
  schema: JsonSchema,
  extra: Extra = {},
): ParamDeclaration {
  return param('query', name, description, schema, extra);
}

/** A request header (`apiName` is the header's name). */
export function headerParam(
  name: string,
  description: string,
  schema: JsonSchema,
  extra: Extra = {},
): ParamDeclaration {
  return param('header', name, description, schema, extra);
}

/** A field of the JSON body built from parameters (`bodyPath` when it sits elsewhere in the body). */
export function bodyParam(
  name: string,
  description: string,
  schema: JsonSchema,
  extra: Extra = {},
): ParamDeclaration {
  return param('body', name, description, schema, extra);
}
