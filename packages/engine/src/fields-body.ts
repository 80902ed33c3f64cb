import { type NumberTexts, textsUnder, textsWithin } from './number-texts.js';

/**
 * The JSON body a `fields` tool builds from its body parameters, and where it holds strings
 * that stand for numbers (`number-texts`), kept in step: a parameter that replaces a field
 * replaces what was known of it.
 */
export class FieldsBody {
  value: Record<string, unknown> = {};
  readonly texts = new Map<string, NumberTexts>();

  /** A parameter's value at its dotted path (`a.b`), objects made along the way. */
  set(dotted: string, value: unknown, texts: NumberTexts | undefined): void {
    const keys = dotted.split('.');
    const last = keys.pop()!;
    let node = this.value;
    for (const key of keys) {
      const next = node[key];
      // A copy of what is there: a whole-body parameter's object, merged, is the caller's (frozen).
      node[key] =
        typeof next !== 'object' || next === null ? {} : Array.isArray(next) ? [...next] : { ...next };
      node = node[key] as Record<string, unknown>;
    }
    node[last] = value;
    place(textsWithin(this.texts, keys), last, texts);
  }

  /** A whole-body parameter: its own fields become the body's. */
  merge(value: object, texts: NumberTexts | undefined): void {
    // Spread, not assigned: assigning an own `__proto__` key (JSON.parse makes one) sets
    // the prototype instead, and the key was silently left out of the body.
    this.value = { ...this.value, ...value };
    for (const key of Object.keys(value)) place(this.texts, key, textsUnder(texts, key));
  }
}

function place(known: Map<string, NumberTexts>, key: string, texts: NumberTexts | undefined): void {
  if (texts === undefined) known.delete(key);
  else known.set(key, texts);
}
