import { Agent, type Dispatcher, EnvHttpProxyAgent, Pool } from 'undici';

type Env = Readonly<Record<string, string | undefined>>;

/** The undici dispatcher the sender sends through, and how to let go of every pool behind it. */
export interface UpstreamDispatcher {
  dispatcher: Dispatcher;
  /** Closes every connection at once, cutting off what is still in flight. */
  destroy(): Promise<void>;
}

/** An environment variable as proxy-from-env (axios's reader) looks it up: lower case first. */
function envValue(env: Env, name: string): string | undefined {
  return env[name] || env[name.toUpperCase()] || undefined;
}

/** A proxy named without a scheme is an HTTP proxy, as curl reads it. */
function proxyUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return value.includes('://') ? value : `http://${value}`;
}

/**
 * The proxy for each scheme, read as axios read it: `<scheme>_proxy`, else `all_proxy`. An
 * https request never falls back to `http_proxy` (curl, Go and Node agree; undici's
 * EnvHttpProxyAgent alone would), so credentials meant for direct TLS do not pass through a
 * proxy configured only for plain HTTP.
 */
export function proxiesFromEnv(env: Env): { http?: string; https?: string; noProxy: string } {
  const all = envValue(env, 'all_proxy');
  return {
    http: proxyUrl(envValue(env, 'http_proxy') ?? all),
    https: proxyUrl(envValue(env, 'https_proxy') ?? all),
    noProxy: envValue(env, 'no_proxy') ?? '',
  };
}

class ProxyConnectionError extends Error {
  readonly code = 'UND_ERR_PRX_CONN';
}

/**
 * The pool that asks the proxy for tunnels. undici 7 retries a CONNECT the proxy hung up on
 * at once and forever, and the request never settles, even when aborted (nodejs/undici#3897;
 * fixed in undici 8.6, which needs Node 22). The hang-up is reported as the failure it is
 * instead, with the code undici 8 gives it; so is a proxy that does not answer the CONNECT
 * within the time a connection may take to open (undici's 10 s), rather than its 300 s.
 */
class TunnelPool extends Pool {
  override connect(options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData>;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback: (err: Error | null, data: Dispatcher.ConnectData) => void,
  ): void;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback?: (err: Error | null, data: Dispatcher.ConnectData) => void,
  ): Promise<Dispatcher.ConnectData> | undefined {
    const connecting = super.connect(options).catch((e: unknown) => {
      const code = (e as { code?: unknown } | null)?.code;
      if (code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR_HEADERS_TIMEOUT') throw e;
      throw new ProxyConnectionError('The proxy did not open the tunnel.', { cause: e });
    });
    if (!callback) return connecting;
    connecting.then(
      (data) => callback(null, data),
      (e: Error) => callback(e, undefined as never),
    );
    return undefined;
  }
}

/**
 * Without proxy variables, one keep-alive Agent. With them, requests of a scheme that has a
 * proxy go through undici's EnvHttpProxyAgent (which applies NO_PROXY), the rest direct.
 * The environment is read once, here, not on every request.
 */
export function createUpstreamDispatcher(env: Env, options: Agent.Options): UpstreamDispatcher {
  const direct = new Agent(options);
  const proxies = proxiesFromEnv(env);
  if (!proxies.http && !proxies.https) return { dispatcher: direct, destroy: () => direct.destroy() };
  const viaProxy = new EnvHttpProxyAgent({
    ...options,
    // Plain-HTTP requests go to the proxy as absolute-form requests, as axios sent them; some
    // proxies refuse CONNECT to port 80. https requests are tunnelled either way.
    proxyTunnel: false,
    clientFactory: (origin, opts) => new TunnelPool(origin, { ...opts, headersTimeout: 10_000 }),
    httpProxy: proxies.http ?? '',
    httpsProxy: proxies.https ?? '',
    noProxy: proxies.noProxy,
  });
  const dispatcher = direct.compose(
    (dispatch) => (opts, handler) =>
      (String(opts.origin).startsWith('https:') ? proxies.https : proxies.http)
        ? viaProxy.dispatch(opts, handler)
        : dispatch(opts, handler),
  );
  return {
    dispatcher,
    destroy: async () => {
      await Promise.all([direct.destroy(), viaProxy.destroy()]);
    },
  };
}
