import { ToolError } from '@toolhost/core';

/**
 * A number only goes into a URL (path or query) as the exact decimal it stands for: beyond 2^53 - 1 a JSON
 * number has already been rounded (the id would name another object), and from 1e21 up
 * (or below 1e-6) JavaScript writes exponent form (`1e+21`), which no API reads as an id.
 */
export function checkNumber(param: string, value: number): void {
  const text = String(value);
  if (
    !Number.isFinite(value) ||
    (Number.isInteger(value) && !Number.isSafeInteger(value)) ||
    /e/i.test(text)
  ) {
    throw ToolError.invalidArgument(
      param,
      `Parameter '${param}' is ${text}, which cannot be sent exactly: integers must be between -9007199254740991 and 9007199254740991 (pass larger ids as strings).`,
    );
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text bound for a URL or a header must be well-formed Unicode: a lone surrogate has no UTF-8 bytes. */
export function checkWellFormed(param: string, text: string): void {
  const at = text.search(LONE_SURROGATE);
  if (at < 0) return;
  const unit = text.charCodeAt(at).toString(16).toUpperCase();
  throw ToolError.invalidArgument(
    param,
    `Parameter '${param}' holds a lone surrogate (\\u${unit} at position ${at}); expected well-formed Unicode text.`,
  );
}

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
    if (typeof entry.value === 'number') checkNumber(entry.param, entry.value);
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
