import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from './request-guards.js';

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
export async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  try {
    return new URLSearchParams(await readBody(req, FORM_LIMIT_BYTES));
  } catch (e) {
    if (e instanceof BodyTooLarge) return undefined;
    throw e;
  }
}
