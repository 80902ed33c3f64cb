import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from '@toolhost/authorization-server/http-body';

/** The host's own small HTML pages (OAuth start and callback, connections): their common parts. */

const FORM_LIMIT_BYTES = 8 * 1024;

export const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The pages' one stylesheet: readable on a desktop and a phone (a table becomes one card per row
 * below 600 px, each cell labelled), light or dark as the reader's system is.
 */
const STYLE = `:root{color-scheme:light dark;--line:#8884;--accent:#2563eb}
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:60rem;margin:0 auto;padding:1rem 1.25rem 3rem}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.2rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:1rem 0}
th,td{text-align:left;padding:.6rem .75rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;opacity:.75}
small{opacity:.7}
a.button,button{display:inline-block;font:inherit;padding:.45rem .9rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:#fff;text-decoration:none;cursor:pointer}
a.button{background:none;color:var(--accent)}
input{font:inherit;padding:.4rem .6rem;border:1px solid var(--line);border-radius:.4rem;max-width:100%}
#notice{padding:.75rem 1rem;border-radius:.4rem;border:1px solid var(--line)}
#notice[role=alert]{border-color:#dc2626}
ul#connect{padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:.5rem}
ul#connect a{display:inline-block;padding:.45rem .9rem;border:1px solid var(--accent);border-radius:.4rem;text-decoration:none}
form{margin:1rem 0}
@media (max-width:600px){
thead{display:none}table,tbody,tr,td{display:block;width:100%}
tr{border:1px solid var(--line);border-radius:.5rem;margin:0 0 .75rem;padding:.25rem 0}
td{border:0;padding:.3rem .75rem;overflow-wrap:anywhere}
td[data-label]::before{content:attr(data-label);display:block;font-size:.75rem;text-transform:uppercase;opacity:.7}}`;

/** The stylesheet allowed by its hash, for the pages' Content-Security-Policy. */
export const STYLE_SRC = `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

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
    'content-security-policy': `default-src 'none'; ${STYLE_SRC}; form-action 'self'; frame-ancestors 'none'`,
    'referrer-policy': 'no-referrer',
    ...extra.headers,
  });
  res.end(
    `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style><h1>${esc(title)}</h1><p>${esc(text)}</p>${extra.body ?? ''}`,
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
