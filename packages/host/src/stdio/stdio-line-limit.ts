import { Transform, type TransformCallback } from 'node:stream';

/** The SDK's stdio transport gives up (and the host exits) on a buffer larger than this. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

const EDGE_BYTES = 256;

/**
 * The id of an oversized JSON-RPC line, from its first or last bytes, so that the error can
 * be correlated: clients write `id` first or (the SDK's) last. null when neither says.
 */
export function idOfOversized(head: string, tail: string): string | number | null {
  const atEnd = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*}\s*$/.exec(tail);
  const atStart = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(
    head,
  );
  const raw = atEnd?.[1] ?? atStart?.[1];
  return raw === undefined ? null : (JSON.parse(raw) as string | number);
}

/**
 * Passes stdin on line by line, and drops a line longer than `limit` instead of passing it
 * to the SDK's reader, which would close the transport (and the host would exit, status 0,
 * without a word). `onOversized` gets the dropped line's first and last bytes and its size.
 */
export class LineLimit extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping = false;
  private head = '';
  private tail = Buffer.alloc(0);

  constructor(
    private readonly limit: number,
    private readonly onOversized: (line: { head: string; tail: string; bytes: number }) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      this.size += piece.length;
      if (!this.dropping && this.size > this.limit) {
        this.dropping = true;
        this.head = Buffer.concat([...this.parts, piece])
          .subarray(0, EDGE_BYTES)
          .toString('utf8');
        this.parts = [];
      }
      if (this.dropping) {
        this.tail = Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES);
        if (newline !== -1) {
          this.onOversized({ head: this.head, tail: this.tail.toString('utf8'), bytes: this.size });
          this.dropping = false;
          this.tail = Buffer.alloc(0);
          this.size = 0;
        }
        continue;
      }
      if (newline === -1) {
        this.parts.push(piece);
        continue;
      }
      this.push(this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]));
      this.parts = [];
      this.size = 0;
    }
    done();
  }
}
