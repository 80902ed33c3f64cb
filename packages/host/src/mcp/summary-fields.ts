/**
 * What a summary of a result over the size budget keeps of the body itself: the fields an
 * agent acts on next (ids such as `preview_id`, an error's `code` and `retryable`, a status, a
 * cursor, an expiry), which are the body's short top-level values. Lists and objects are what
 * made it large; they stay in the linked resource.
 */
const MAX_FIELDS = 40;
const MAX_STRING = 256;

export function actionableFields(
  value: unknown,
  maxBytes: number,
): Record<string, string | number | boolean> {
  const kept: Record<string, string | number | boolean> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return kept;
  let bytes = 2;
  let count = 0;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (count >= MAX_FIELDS) break;
    const short =
      (typeof v === 'string' && v.length <= MAX_STRING) ||
      (typeof v === 'number' && Number.isFinite(v)) ||
      typeof v === 'boolean';
    if (!short || key.length > MAX_STRING) continue;
    const size = Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(v)) + 2;
    if (bytes + size > maxBytes) continue;
    kept[key] = v as string | number | boolean;
    bytes += size;
    count += 1;
  }
  return kept;
}
