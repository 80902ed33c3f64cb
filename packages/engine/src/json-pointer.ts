/** The keys of a JSON pointer (`/items/0/id`, RFC 6901), unescaped: `[]` for the whole document. */
export function pointerKeys(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
}
