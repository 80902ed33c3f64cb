import type { Transform } from 'node:stream';
import axios, {
  type AxiosAdapter,
  AxiosError,
  AxiosHeaders,
  type AxiosResponse,
  CanceledError,
  type InternalAxiosRequestConfig,
} from 'axios';
import type { Dispatcher } from 'undici';
import { decodersFor } from './content-codings.js';
import { DEPARTURE_HOOK } from './departure-hook.js';
import { UNDECODABLE_BODY } from './undecodable-body.js';

/**
 * An axios adapter that sends through an undici dispatcher: axios keeps the request pipeline
 * (config, headers, params, `validateStatus`, error types), undici does the transport, for
 * little more than half the CPU per request of axios's `http` adapter.
 *
 * It does what the engine's sender asks of axios's `http` adapter, with the same visible
 * results: no redirects followed, `maxContentLength` enforced while reading (decompressed
 * bytes), bodies decompressed and decoded as UTF-8 text, the same default `User-Agent`.
 * It asks for gzip, deflate and br, the codings it decodes (axios also offered `compress`,
 * which nobody serves and it could not decode), and decodes them stacked (`gzip, br`); an
 * answer in another coding fails as `UNDECODABLE_BODY` rather than pass its bytes off as text. `timeout` is a deadline for the whole
 * exchange, from sending to the last byte of the answer, as in axios's `fetch` adapter (the
 * `http` adapter's is an idle time between packets, which an answer trickling in a byte at a
 * time never reaches). Not supported, because the sender does not use them: `auth`,
 * upload/download progress, `maxRate` and streamed bodies.
 */
export function createUndiciAdapter(dispatcher: Dispatcher): AxiosAdapter {
  return (config) => send(dispatcher, config);
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
  return new Promise<AxiosResponse>((resolve, reject) => {
    const exchange = new Exchange(config, method, resolve, reject);
    if (exchange.settled) return;
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method,
        headers: requestHeaders(config.headers),
        body: body ?? null,
      },
      exchange,
    );
  });
}

/**
 * One request's exchange, as an undici dispatch handler: it gathers the answer's status,
 * headers and body text itself. Written against `dispatch` rather than `request`, whose
 * handler is an AsyncResource handing the body over as a Readable stream, with a listener of
 * its own on the signal: about a third of undici's CPU per call, for a body the adapter only
 * gathers into one string.
 *
 * Cancellation: the answer settles as soon as the signal aborts. undici takes no notice of an
 * abort until the connection is open (a connect or proxy tunnel that hangs runs on to its own
 * timeout, 10 s or more, past the caller's deadline), so the request is dropped once undici
 * starts it, or at once if it has started.
 */
class Exchange implements Dispatcher.DispatchHandler {
  settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private response: AxiosResponse<string> | undefined;
  /** The body's decoders, the first fed from the wire and each piping into the next. */
  private decoders: Transform[] = [];
  /** Why a body this answer has cannot be decoded: it fails at its first byte. */
  private undecodable: string | undefined;
  /** An error status's body left unread, as undecodable. */
  private unread = false;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly signal: AbortSignal | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => {
    const cancelled = new CanceledError(undefined, this.config);
    this.controller?.abort(cancelled);
    // The wire may have ended already (abort then does nothing): the decoders would inflate the
    // rest of a bomb for nobody, past the limit no longer counted once the exchange is settled.
    this.destroyDecoders();
    this.fail(cancelled);
  };

  constructor(
    private readonly config: InternalAxiosRequestConfig,
    private readonly method: string,
    private readonly resolve: (response: AxiosResponse) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.signal = (config.signal as AbortSignal | undefined) ?? undefined;
    if (config.timeout) this.timer = setTimeout(() => this.timedOut(), config.timeout);
    if (this.signal?.aborted) this.onAbort();
    else this.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) {
      controller.abort(new CanceledError(undefined, this.config));
      return;
    }
    const departing = (this.config as { [DEPARTURE_HOOK]?: () => void })[DEPARTURE_HOOK];
    departing?.();
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    statusText?: string,
  ): void {
    // AxiosHeaders, as axios's own adapters give: axios then keeps this object rather than
    // copying a plain one into a new AxiosHeaders twice.
    const response: AxiosResponse<string> & { headers: AxiosHeaders } = {
      data: '',
      status,
      statusText: statusText ?? '',
      headers: new AxiosHeaders(responseHeaders(headers)),
      config: this.config,
    };
    this.response = response;
    const bodiless = this.method === 'HEAD' || status === 204 || status === 304;
    const decoders = decodersFor(bodiless ? undefined : response.headers.get('content-encoding'));
    if (!Array.isArray(decoders)) {
      this.undecodable = decoders.refused;
      return;
    }
    const last = decoders.at(-1);
    if (!last) return;
    response.headers.delete('content-encoding');
    this.decoders = decoders;
    // Piped, so each waits for the next: the first stops taking the wire's bytes while any
    // later one is behind, and none holds more than its buffer of what it decoded.
    for (let i = 1; i < decoders.length; i++) decoders[i - 1]!.pipe(decoders[i]!);
    for (const decoder of decoders) {
      // Dropped, as past maxContentLength: otherwise undici reads the rest of an answer
      // nobody will decode, for as long as the upstream writes it, on a pooled connection.
      decoder.on('error', (e) => this.drop(toAxiosError(e, this.config, response)));
    }
    last.on('data', (chunk: Buffer) => this.take(chunk));
    last.once('end', () => this.finish());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.undecodable !== undefined) {
      const { config, response } = this;
      // A success whose body cannot be read fails; another status (a 429, a 503) is judged by its
      // status as ever, its body left unread (finish says why).
      if (response && response.status >= 200 && response.status < 300)
        this.drop(new AxiosError(this.undecodable, UNDECODABLE_BODY, config, undefined, response));
      else this.unread = true;
      return;
    }
    const first = this.decoders[0];
    if (!first) {
      this.take(chunk);
      return;
    }
    // zlib hands back 16 KiB of output a turn, so a highly compressed answer arrives far
    // faster than it is decoded: unpaused, a gzip bomb's wire bytes queued up in memory
    // (gigabytes) long before its output reached maxContentLength.
    if (!first.write(chunk) && !controller.paused) {
      controller.pause();
      first.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    if (this.settled) return;
    const first = this.decoders[0];
    if (first) first.end();
    else this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.destroyDecoders();
    this.fail(toAxiosError(error, this.config, this.response));
  }

  /** Fails the exchange and hangs up, so that undici reads no more of an answer nobody will read. */
  private drop(error: AxiosError): void {
    this.controller?.abort(error);
    this.destroyDecoders();
    this.fail(error);
  }

  private destroyDecoders(): void {
    for (const decoder of this.decoders) decoder.destroy();
  }

  /**
   * One piece of the (decompressed) body. Past `maxContentLength` it stops at once and drops
   * the request, which closes the connection instead of draining an answer nobody will read.
   */
  private take(chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    const limit = this.config.maxContentLength ?? -1;
    if (limit > -1 && this.size > limit) {
      this.drop(
        new AxiosError(
          `maxContentLength size of ${limit} exceeded`,
          AxiosError.ERR_BAD_RESPONSE,
          this.config,
        ),
      );
      return;
    }
    this.chunks.push(chunk);
  }

  /** The body as UTF-8 text (a byte-order mark dropped), and the status judged. */
  private finish(): void {
    const response = this.response;
    if (this.settled || !response) return;
    const { chunks } = this;
    const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
    response.data = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    if (this.unread) response.data = `(not shown: the body is in ${this.undecodable})`;
    this.settle();
    try {
      this.resolve(settle(response));
    } catch (e) {
      this.reject(e);
    }
  }

  /** The deadline passed, wherever the exchange was: the error axios's own adapters give. */
  private timedOut(): void {
    const { config } = this;
    const error = new AxiosError(
      config.timeoutErrorMessage || `timeout of ${config.timeout}ms exceeded`,
      config.transitional?.clarifyTimeoutError ? AxiosError.ETIMEDOUT : AxiosError.ECONNABORTED,
      config,
    );
    this.drop(error);
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settle();
    this.reject(error);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
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
