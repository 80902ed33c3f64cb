import type { IncomingMessage, ServerResponse } from 'node:http';

// Request bodies and JSON answers over node:http, for the authorization server's endpoints and
// the host's MCP endpoint and pages alike. A subpath of its own (`/http-body`), so that the
// host loads this file and not the authorization server with it.

/** A request body over its limit, announced (Content-Length) or received. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The body is larger than ${limit} bytes`);
  }
}

/** The request body as text, refused past `limit` bytes (announced or received). */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    req.resume();
    return Promise.reject(new BodyTooLarge(limit));
  }
  // A small request arrives in one packet: by the time a handler has awaited anything, the
  // parser has buffered the whole body. Taking it at once saves the stream's turns of
  // 'data' and 'end' events.
  if (req.complete && req.readableLength <= limit) {
    const body: Buffer | null = req.read();
    return Promise.resolve(body === null ? '' : body.toString('utf8'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering but let the rest drain, so the 413 can still be read by the client.
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * One JSON answer. With its length known, Node sends headers and body in one plain write;
 * without it, writeHead commits to chunked encoding and the client must undo the framing.
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}
