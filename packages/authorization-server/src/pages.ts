import type { ServerResponse } from 'node:http';

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]!);
}

/**
 * The headers of every page a person sees here: never framed (clickjacking a consent
 * button), no script, no caching, no referrer carrying a request id elsewhere.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer a browser posts the forms with `Origin: null`.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}.who{font-weight:600}.badge{font-size:.75rem;background:#fde68a;border-radius:.3rem;padding:.1rem .35rem;margin-left:.3rem}
ul{padding-left:1.2rem}li{margin:.3rem 0}.muted{color:#555;font-size:.9rem}.warn{color:#92400e}
form{margin-top:1.5rem}button{font-size:1rem;padding:.5rem 1.1rem;margin-right:.6rem;border-radius:.4rem;border:1px solid #888;cursor:pointer}
button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}input[type=password]{width:100%;padding:.45rem;font-size:1rem;box-sizing:border-box}
a.button{display:inline-block;padding:.5rem 1.1rem;border-radius:.4rem;background:#1d4ed8;color:#fff;text-decoration:none}`;

export function sendPage(
  res: ServerResponse,
  status: number,
  title: string,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(html), ...headers });
  res.end(html);
}

/** A page saying why the request stops here, without sending the browser anywhere. */
export function sendErrorPage(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendPage(
    res,
    status,
    'Authorization failed',
    `<h1>This authorization cannot go on</h1><p>${escapeHtml(message)}</p><p class="muted">Return to the application and try connecting again.</p>`,
    headers,
  );
}

export function hiddenFields(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
}
