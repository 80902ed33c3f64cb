import { httpAuthorizationSection } from './http-authorization.js';
import { names } from './shapes.js';

/** `http`: the Streamable HTTP server. */
export const httpSection = {
  type: 'object',
  additionalProperties: false,
  description: 'The Streamable HTTP server (`serve --http`) and the OAuth pages.',
  properties: {
    host: {
      type: 'string',
      description: 'Address to bind; binding beyond loopback needs access tokens.',
      default: '127.0.0.1',
    },
    port: {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      description: 'Port to listen on (0: any free port).',
      default: 3333,
      'x-env': 'TOOLHOST_PORT',
      'x-flag': '--http [port]',
    },
    path: { type: 'string', pattern: '^/', description: 'Path of the MCP endpoint.', default: '/mcp' },
    publicUrl: {
      type: 'string',
      format: 'uri',
      description:
        "The URL users' browsers reach this host at (OAuth redirects behind a proxy); required for OAuth on a wildcard bind.",
    },
    accessTokens: {
      type: 'object',
      additionalProperties: { type: 'string', minLength: 16 },
      description:
        'Bearer tokens the operator issues to MCP clients, by user id (`{"alice": "<token>"}`); required to bind beyond loopback.',
      'x-env': 'TOOLHOST_ACCESS_TOKENS (alice:<token>,bob:<token>)',
    },
    authorization: httpAuthorizationSection,
    operators: {
      ...names,
      description:
        "Users (by id) who see and end every user's connections at /connections; others see their own.",
    },
    maxSessionsPerUser: {
      type: 'integer',
      minimum: 1,
      maximum: 10_000,
      description:
        'Open MCP sessions per user (per user and client name without access tokens); at the cap the least recently used idle one is closed.',
      default: 16,
    },
    maxSessions: {
      type: 'integer',
      minimum: 1,
      maximum: 1_000_000,
      description: 'Open MCP sessions in all; at the cap the least recently used idle one is closed.',
      default: 1000,
    },
    sessionIdleSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 604_800,
      description: 'Sessions idle this long are closed.',
      default: 1800,
    },
    allowedOrigins: {
      type: 'array',
      items: { type: 'string' },
      description:
        "Origins whose web pages may call the MCP endpoint (`https://app.example`): their CORS preflights are answered and the answers' headers readable (the session id, the sign-in challenge). Loopback origins pass the DNS-rebinding check without being listed, but a page needs its origin listed to call across origins.",
    },
    allowedHosts: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        "Host header values answered besides the bound address and publicUrl's host (e.g. `mcp.example.com`).",
    },
    trustedProxies: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        "The reverse proxies in front of the host, whose `X-Forwarded-For` tells the client's address: IP addresses, CIDR ranges (`10.0.0.0/8`), or `loopback`, `linklocal`, `uniquelocal`. The own authorization server's bounds per address (registrations, sign-ins started, failed sign-ins) count by that address; without this, every client behind a proxy counts as the proxy.",
      'x-env': 'TOOLHOST_TRUSTED_PROXIES (comma-separated)',
    },
    metricsToken: {
      type: 'string',
      minLength: 16,
      description:
        'A bearer token of its own for `GET /metrics` (a Prometheus scraper), besides the access tokens of `http.operators`; no other user may read the metrics.',
      'x-env': 'TOOLHOST_METRICS_TOKEN',
    },
    maxBodyBytes: {
      type: 'integer',
      minimum: 1024,
      maximum: 256 * 1024 * 1024,
      description: 'Largest request body accepted, in bytes.',
      default: 4 * 1024 * 1024,
    },
    keepAliveSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86_400,
      description:
        "How long an idle connection is kept open for the client's next request, in seconds. Above the idle timeout of a balancer that pools connections to the host (AWS ALB and nginx: 60 s; GCP: 600 s), else the balancer reuses a connection the host is closing and answers 502 (docs/replicas.md).",
      default: 75,
    },
    headersTimeoutSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86_500,
      description:
        "How long a request's headers may take to arrive, in seconds; above `keepAliveSeconds`. Unset: `keepAliveSeconds` + 5.",
    },
    drainDelaySeconds: {
      type: 'number',
      minimum: 0,
      maximum: 3600,
      description:
        'On SIGTERM, how long `/readyz` and `/healthz` answer 503 while requests are still served, so that a balancer stops sending before the host refuses (a Kubernetes pre-stop delay; docs/replicas.md), in seconds. Then calls in progress finish (`shutdownGraceSeconds`) and new ones are refused.',
      default: 0,
    },
  },
} as const;
