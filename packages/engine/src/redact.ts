const REDACTED = '[redacted]';

/**
 * Credentials shorter than this are not looked for in answers. A one-letter key would turn
 * `ok` into `o[redacted]` and every word that holds the letter, garbling answers while hiding
 * nothing: no vendor issues a key or token this short, and 8 characters do not turn up in
 * ordinary text by chance.
 */
export const MIN_REDACTED_LENGTH = 8;

/**
 * The forms in which a credential the host sent can come back from an upstream that echoes
 * requests: as sent, percent-encoded (echoed URLs and forms), and with `/` escaped (some JSON
 * encoders write `\/`, which a text body keeps). Longest first, so that no shorter form
 * leaves part of a longer one behind.
 */
export function credentialForms(values: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (value.length < MIN_REDACTED_LENGTH) continue;
    forms.add(value);
    forms.add(encodeURIComponent(value));
    if (value.includes('/')) forms.add(value.replaceAll('/', '\\/'));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

function scrubText(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
  return out;
}

/**
 * A copy of `value` (a parsed upstream body) with every credential form replaced by
 * `[redacted]`, in keys as in values; `value` itself where nothing needed replacing, so a
 * clean body costs a walk and no copy.
 */
export function redact(value: unknown, forms: readonly string[]): unknown {
  if (forms.length === 0) return value;
  if (typeof value === 'string') return scrubText(value, forms);
  if (typeof value === 'number') return forms.includes(String(value)) ? REDACTED : value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = redact(item, forms);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    // Entries, not assignments: assigned, an answer's own `__proto__` key set the copy's
    // prototype and was left out of it.
    const out = Object.entries(value).map(([key, item]) => {
      const k = scrubText(key, forms);
      const next = redact(item, forms);
      if (k !== key || next !== item) changed = true;
      return [k, next];
    });
    return changed ? Object.fromEntries(out) : value;
  }
  return value;
}
