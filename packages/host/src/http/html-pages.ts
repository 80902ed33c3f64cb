import type { IncomingMessage, ServerResponse } from 'node:http';

/** The host's own small HTML pages (OAuth start and callback, connections): their common parts. */

const FORM_LIMIT_BYTES = 8 * 1024;

export const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small HTML page without script, never cached or framed. */
export function page(
  res: ServerResponse,
  status: number,
  title: string,
  text: string,
  extra: { body?: string; headers?: Record<string, string | string[]> } = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The pages carry no script; nothing of theirs may be framed (clickjacking the confirmation).
    'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
    ...extra.headers,
  });
  res.end(
    `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><h1>${esc(title)}</h1><p>${esc(text)}</p>${extra.body ?? ''}`,
  );
}

export function redirect(res: ServerResponse, status: number, location: string, cookie?: string): void {
  res.writeHead(status, {
    location,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    ...(cookie ? { 'set-cookie': cookie } : {}),
  });
  res.end();
}

/** A small urlencoded form body (undefined when over the limit). */
export function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > FORM_LIMIT_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}
