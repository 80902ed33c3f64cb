/**
 * What the search reads of a tool: its name and set, its description, the names of its
 * parameters, whether it only reads, and the HTTP endpoint it mirrors. The host's `SearchableTool`
 * fits it as is; so does any other server's tool described the same way.
 */
export interface SearchableTool {
  /** Canonical name `<ToolSet>.<ToolName>`. */
  name: string;
  toolSet: string;
  /** What it does, in words. */
  description: string;
  /** The JSON Schema of its arguments; the search reads `properties`, their descriptions and `required`. */
  inputSchema: { properties?: object; required?: readonly string[]; readonly [key: string]: unknown };
  /** Its behaviour hints; the search reads `readOnly`. */
  hints: { readOnly: boolean };
  /** The endpoint the tool mirrors, when it mirrors one: the operation and object are read from it. */
  endpoint?: {
    method: string;
    /** Path template, e.g. `/meta/bases/{baseId}/tables`. */
    path: string;
    /** Input parameter names of the path placeholders, in path order. */
    pathParams: readonly string[];
  };
}
