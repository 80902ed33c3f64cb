import { ToolError } from '@toolhost/core';

/**
 * Fills `{name}` placeholders with percent-encoded values. `encodeURIComponent` escapes
 * `/ ? # %` and control characters, so no value can add a segment, a query or a fragment;
 * dot segments are refused outright because URL parsers resolve even their encoded forms
 * (`%2e%2e`) to a parent directory (WHATWG URL, "double-dot path segment").
 */
export function fillPath(
  template: string,
  values: ReadonlyMap<string, { param: string; value: unknown }>,
): string {
  return template.replace(/\{([^}]+)\}/g, (_m, key: string) => {
    const entry = values.get(key);
    if (!entry || entry.value === undefined || entry.value === null) {
      throw ToolError.invalidArgument(key, `Path parameter for '{${key}}' is missing.`);
    }
    const text = String(entry.value);
    if (text === '' || text === '.' || text === '..') {
      throw ToolError.invalidArgument(
        entry.param,
        `Parameter '${entry.param}' must be a non-empty identifier, not ${JSON.stringify(text)}.`,
      );
    }
    return encodeURIComponent(text);
  });
}
