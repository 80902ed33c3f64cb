/**
 * A JSON Schema (draft-07 flavoured, OpenAPI 3.0 keywords such as `nullable` allowed).
 * Kept loose on purpose: request-body schemas are carried over from vendors' OpenAPI
 * descriptions and may use any keyword.
 */
export type JsonSchema = {
  type?: string | readonly string[];
  description?: string;
  enum?: readonly unknown[];
  format?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  [keyword: string]: unknown;
};
