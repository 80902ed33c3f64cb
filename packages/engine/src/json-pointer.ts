/** The keys of a JSON pointer (`/items/0/id`, RFC 6901), unescaped: `[]` for the whole document. */
export function pointerKeys(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The JSON pointer of `keys`, escaped: `''` for none. */
export function pointerOf(keys: readonly string[]): string {
  return keys.map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** What `value` holds at `keys`, own members only; undefined where nothing is. */
export function valueAt(value: unknown, keys: readonly string[]): unknown {
  let node = value;
  for (const key of keys) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
