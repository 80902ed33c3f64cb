/**
 * A minimal browser for OAuth tests: follows redirects itself and keeps cookies (by host name
 * and path, as browsers scope them; ports share cookies), so that a test can tell one user's
 * browser from another's.
 */
export class Browser {
  private readonly jar = new Map<string, { value: string; path: string; host: string }>();

  /** Cookies this browser holds, name → value. */
  cookies(): Record<string, string> {
    return Object.fromEntries([...this.jar].map(([name, c]) => [name, c.value]));
  }

  private cookieHeader(url: URL): string | undefined {
    const pairs = [...this.jar]
      .filter(([, c]) => c.host === url.hostname && url.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`);
    return pairs.length > 0 ? pairs.join('; ') : undefined;
  }

  private keep(url: URL, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const maxAge = attrs.find((a) => /^max-age=/i.test(a));
      if (maxAge && Number(maxAge.slice(8)) <= 0) this.jar.delete(name);
      else this.jar.set(name, { value: pair!.slice(at + 1), path, host: url.hostname });
    }
  }

  /** One request, no redirect followed. */
  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(target);
    if (cookie) headers.set('cookie', cookie);
    // Each request on a connection of its own. A kept-alive one may be closed by the server as
    // it is reused (on a loaded machine the client's idle timer runs late): a browser sends the
    // request again on a fresh connection then, whatever its method, where fetch fails it.
    headers.set('connection', 'close');
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    this.keep(target, res);
    return res;
  }

  /** Opens a URL and follows redirects (GET) to the final page; `stopAt` ends early on a matching URL. */
  async open(url: string | URL, init: RequestInit = {}, stopAt?: (next: URL) => boolean): Promise<Page> {
    let res = await this.request(url, init);
    let current = new URL(url);
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops += 1) {
      const next = new URL(res.headers.get('location')!, current);
      if (stopAt?.(next)) return { status: res.status, url: next, text: '' };
      current = next;
      res = await this.request(current);
    }
    return { status: res.status, url: current, text: await res.text() };
  }

  /** Submits a form (urlencoded POST) from a page of `origin`, then follows redirects. */
  submit(
    action: string | URL,
    fields: Record<string, string>,
    stopAt?: (next: URL) => boolean,
  ): Promise<Page> {
    return this.open(
      action,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: new URL(action).origin,
        },
        body: new URLSearchParams(fields).toString(),
      },
      stopAt,
    );
  }
}

export interface Page {
  status: number;
  url: URL;
  text: string;
}

/** The form fields of the first form on a page (hidden inputs included), and its action. */
export function formOf(page: Page): { action: URL; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]*)"/i.exec(page.text);
  if (!form) throw new Error(`no form on the page (${page.status}): ${page.text.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const m of page.text.matchAll(/<input[^>]*name="([^"]+)"(?:[^>]*value="([^"]*)")?/gi))
    fields[m[1]!] = (m[2] ?? '').replace(/&#(\d+);/g, (_c, n: string) => String.fromCharCode(Number(n)));
  return { action: new URL(form[1]!.replace(/&amp;/g, '&'), page.url), fields };
}

const isCallback = (next: URL) => next.pathname.startsWith('/oauth/callback/');

/**
 * Opens an authorization link in `browser` as its user would: confirms with the user's access
 * token where the host asks for it, consents at the authorization server, and stops at the
 * redirect back to the host; returns that callback URL.
 */
export async function startFlow(browser: Browser, url: string, token: string): Promise<URL> {
  let page = await browser.open(url, {}, isCallback);
  if (page.status === 200) {
    const form = formOf(page);
    page = await browser.submit(form.action, { ...form.fields, access_token: token }, isCallback);
  }
  if (!isCallback(page.url)) throw new Error(`flow did not reach the callback: ${page.status} ${page.text}`);
  return page.url;
}
