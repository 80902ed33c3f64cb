import type { Transform } from 'node:stream';
import { constants, createBrotliDecompress, createUnzip } from 'node:zlib';

// Lenient flushing, as axios's http adapter uses: a body cut short still yields what arrived.
const zlibOptions = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const brotliOptions = {
  flush: constants.BROTLI_OPERATION_FLUSH,
  finishFlush: constants.BROTLI_OPERATION_FLUSH,
};

/**
 * undici's `request` leaves bodies as sent, and its decompress interceptor is still
 * experimental in 7.x (it warns on the process's stderr), so the codings axios's http adapter
 * decoded are decoded here with node:zlib. A Map: a coding is the upstream's word, and
 * `constructor` must not find a decoder on an object's prototype.
 */
const DECODERS = new Map<string, () => Transform>([
  // Unzip reads both gzip and zlib-wrapped deflate.
  ['gzip', () => createUnzip(zlibOptions)],
  ['x-gzip', () => createUnzip(zlibOptions)],
  ['deflate', () => createUnzip(zlibOptions)],
  ['br', () => createBrotliDecompress(brotliOptions)],
]);

/**
 * As curl, at most five codings over one another: each decoder holds its own buffers, and a
 * header of a thousand `gzip`s would have had a thousand. Real answers have one, two at most.
 */
const MAX_CODINGS = 5;

/**
 * The decoders a Content-Encoding header asks for, in the order they run; `refused` says why
 * there are none where the body cannot be decoded, which must not pass its bytes off as the
 * answer. The header lists codings in the order they were applied (RFC 9110, 8.4.1: `gzip, br`
 * is gzip, then br), so they come off the last first; `identity` is no coding at all.
 */
export function decodersFor(header: unknown): Transform[] | { refused: string } {
  if (typeof header !== 'string') return [];
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const unknown = codings.find((coding) => !DECODERS.has(coding));
  if (unknown !== undefined)
    return {
      refused: `content-encoding '${unknown.slice(0, 40)}', which cannot be decoded (gzip, deflate and br can)`,
    };
  if (codings.length > MAX_CODINGS)
    return {
      refused: `${codings.length} content codings, more than the ${MAX_CODINGS} decoded one over another`,
    };
  return codings.reverse().map((coding) => DECODERS.get(coding)!());
}
