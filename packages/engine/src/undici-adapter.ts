import { pipeline, type Readable, type Transform } from 'node:stream';
import { constants, createBrotliDecompress, createUnzip } from 'node:zlib';
import axios, {
  type AxiosAdapter,
  AxiosError,
  type AxiosHeaders,
  type AxiosResponse,
  CanceledError,
  type InternalAxiosRequestConfig,
} from 'axios';
import type { Dispatcher } from 'undici';

/**
 * An axios adapter that sends through an undici dispatcher: axios keeps the request pipeline
 * (config, headers, params, `validateStatus`, error types), undici does the transport, for
 * little more than half the CPU per request of axios's `http` adapter.
 *
 * It does what the engine's sender asks of axios's `http` adapter, with the same visible
 * results: no redirects followed, `maxContentLength` enforced while reading (decompressed
 * bytes), bodies decompressed and decoded as UTF-8 text, the same default `User-Agent`.
 * It asks for gzip, deflate and br, the codings it decodes (axios also offered `compress`,
 * which nobody serves and it could not decode). Not supported, because the sender does not use them: `timeout` (abort
 * through `signal` instead), `auth`, upload/download progress, `maxRate` and streamed bodies.
 */
export function createUndiciAdapter(dispatcher: Dispatcher): AxiosAdapter {
  return (config) => settleOnAbort(send(dispatcher, config), config);
}

/**
 * undici takes no notice of an abort until the connection is open: a connect or proxy tunnel
 * that hangs runs on to its own timeout (10 s or more), past the caller's deadline. So the
 * adapter settles as soon as the signal aborts, and undici drops the request when it can.
 */
function settleOnAbort(sending: Promise<AxiosResponse>, config: InternalAxiosRequestConfig) {
  const signal = config.signal as AbortSignal | undefined;
  if (!signal) return sending;
  return new Promise<AxiosResponse>((resolve, reject) => {
    const onAbort = () => reject(new CanceledError(undefined, config));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    sending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function send(dispatcher: Dispatcher, config: InternalAxiosRequestConfig): Promise<AxiosResponse> {
  const method = (config.method ?? 'get').toUpperCase() as Dispatcher.HttpMethod;
  let url: URL;
  try {
    url = new URL(requestUrl(config));
  } catch (e) {
    throw AxiosError.from(e, AxiosError.ERR_INVALID_URL, config);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AxiosError(`Unsupported protocol ${url.protocol}`, AxiosError.ERR_BAD_REQUEST, config);
  const body = requestBody(config);

  let res: Dispatcher.ResponseData;
  try {
    res = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method,
      headers: requestHeaders(config.headers),
      body,
      signal: (config.signal as AbortSignal | undefined) ?? null,
    });
  } catch (e) {
    throw toAxiosError(e, config);
  }

  const response: AxiosResponse<string> = {
    data: '',
    status: res.statusCode,
    statusText: res.statusText,
    headers: responseHeaders(res.headers),
    config,
  };
  const bodiless = method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
  const encoding = bodiless ? undefined : response.headers['content-encoding'];
  const decompressor = decompressorFor(encoding);
  if (decompressor) delete response.headers['content-encoding'];
  try {
    response.data = await readText(res.body, decompressor, config);
  } catch (e) {
    throw toAxiosError(e, config, response);
  }
  return settle(response);
}

/**
 * The URL axios's own adapters would request. getUri merges the config with the defaults again
 * (a tenth of a request's CPU), which only `params` and `baseURL` need.
 */
function requestUrl(config: InternalAxiosRequestConfig): string {
  return config.params || config.baseURL ? axios.getUri(config) : String(config.url);
}

/** The same decision axios's `settle` makes, so `validateStatus` keeps its meaning. */
function settle(response: AxiosResponse): AxiosResponse {
  const { validateStatus } = response.config;
  if (!response.status || !validateStatus || validateStatus(response.status)) return response;
  throw new AxiosError(
    `Request failed with status code ${response.status}`,
    response.status >= 400 && response.status < 500
      ? AxiosError.ERR_BAD_REQUEST
      : AxiosError.ERR_BAD_RESPONSE,
    response.config,
    undefined,
    response,
  );
}

function requestBody(config: InternalAxiosRequestConfig): string | Uint8Array | undefined {
  const { data } = config;
  if (data === undefined || data === null || typeof data === 'string' || data instanceof Uint8Array) {
    return data ?? undefined;
  }
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new AxiosError(
    'Data after transformation must be a string, an ArrayBuffer or a Uint8Array',
    AxiosError.ERR_BAD_REQUEST,
    config,
  );
}

const ACCEPT_ENCODING = 'gzip, deflate, br';

function requestHeaders(headers: AxiosHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  // toJSON leaves out the headers set to null or false (axios's way of removing a default).
  for (const [name, value] of Object.entries(headers.toJSON())) {
    out[name] = Array.isArray(value) ? value.map(headerValue) : headerValue(value);
  }
  // What axios's http adapter adds when the caller has not set them: some APIs refuse a
  // request without a User-Agent, and compressed answers are smaller on the wire.
  if (!headers.has('user-agent')) out['user-agent'] = `axios/${axios.VERSION}`;
  if (!headers.has('accept-encoding')) out['accept-encoding'] = ACCEPT_ENCODING;
  return out;
}

/**
 * As axios's http adapter does, bytes a header value cannot carry (line breaks, other control
 * characters, anything past Latin-1) are dropped rather than failing the request, so a value
 * taken from a tool argument can never start a header line of its own.
 */
function headerValue(value: unknown): string {
  return String(value)
    .replace(/[^\t\x20-\x7e\x80-\xff]+/g, '')
    .replace(/^[\t ]+|[\t ]+$/g, '');
}

/** undici gives repeated headers as arrays; Node's http joined all but `set-cookie` with ", ". */
function responseHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) && name !== 'set-cookie' ? value.join(', ') : value;
  }
  return out;
}

// Lenient flushing, as axios's http adapter uses: a body cut short still yields what arrived.
const zlibOptions = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const brotliOptions = {
  flush: constants.BROTLI_OPERATION_FLUSH,
  finishFlush: constants.BROTLI_OPERATION_FLUSH,
};

/**
 * undici's `request` leaves bodies as sent, and its decompress interceptor is still
 * experimental in 7.x (it warns on the process's stderr), so the codings axios's http adapter
 * decoded are decoded here with node:zlib.
 */
function decompressorFor(encoding: unknown): Transform | undefined {
  switch (typeof encoding === 'string' ? encoding.trim().toLowerCase() : undefined) {
    case 'gzip':
    case 'x-gzip':
    case 'deflate':
      // Unzip reads both gzip and zlib-wrapped deflate.
      return createUnzip(zlibOptions);
    case 'br':
      return createBrotliDecompress(brotliOptions);
    default:
      return undefined;
  }
}

/**
 * Reads the body as UTF-8 text. Past `maxContentLength` it stops at once and destroys the
 * body, which closes the connection instead of draining an answer nobody will read.
 */
function readText(
  body: Readable,
  decompressor: Transform | undefined,
  config: InternalAxiosRequestConfig,
): Promise<string> {
  const limit = config.maxContentLength ?? -1;
  const source: Readable = decompressor ? pipeline(body, decompressor, () => {}) : body;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (limit > -1 && size > limit) {
        source.destroy();
        body.destroy();
        reject(
          new AxiosError(`maxContentLength size of ${limit} exceeded`, AxiosError.ERR_BAD_RESPONSE, config),
        );
        return;
      }
      chunks.push(chunk);
    });
    source.once('error', reject);
    source.once('end', () => {
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    });
  });
}

/**
 * undici's failures as axios's: a cancelled request is a `CanceledError` (whatever reason
 * the signal carries), a network failure keeps the operating system's code (ECONNREFUSED,
 * ENOTFOUND...), wherever undici put it.
 */
function toAxiosError(e: unknown, config: InternalAxiosRequestConfig, response?: AxiosResponse): AxiosError {
  if (config.signal?.aborted) return new CanceledError(undefined, config);
  if (e instanceof AxiosError) return e;
  if (!(e instanceof Error))
    return new AxiosError(String(e), AxiosError.ERR_NETWORK, config, undefined, response);
  return AxiosError.from(e, networkCode(e), config, undefined, response);
}

/** An operating system error code (ECONNREFUSED, EAI_AGAIN), not one of Node's ERR_ codes. */
const SYSTEM_CODE = /^E(?!RR_)[A-Z0-9_]+$/;

function networkCode(e: Error & { code?: unknown; errors?: unknown }): string | undefined {
  const candidates = [e.code, (e.cause as { code?: unknown } | undefined)?.code];
  if (Array.isArray(e.errors)) candidates.push((e.errors[0] as { code?: unknown } | undefined)?.code);
  const system = candidates.find((c): c is string => typeof c === 'string' && SYSTEM_CODE.test(c));
  if (system) return system;
  // undici's name for the peer closing the connection mid-exchange; Node's http calls it so.
  if (e.code === 'UND_ERR_SOCKET') return 'ECONNRESET';
  return typeof e.code === 'string' ? e.code : undefined;
}
