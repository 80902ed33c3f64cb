import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenRejection, TokenVerifier, VerifiedToken } from './token-verifier.js';

/**
 * How an MCP endpoint is protected, whoever issues the tokens: the authorization servers its
 * resource metadata names, and the check of a presented token. An authorization server in the
 * same process hands in its in-process key set; a team's identity provider comes from config.
 */
export interface FrontDoorSettings<S extends string = string> {
  /** Issuer URLs of the authorization servers clients sign in at (RFC 9728 `authorization_servers`). */
  authorizationServers: readonly string[];
  /**
   * The token check for this resource, given its URL (the audience) once the server listens,
   * and told whom to tell of a token's first use (a sign-in).
   */
  verifier: (resource: string, onFirstUse?: (token: VerifiedToken) => void) => TokenVerifier;
  /** The resource's scopes as the issuer names them (Entra ID: `api://…/tools.read`). */
  scopeNames?: Partial<Record<S, string>>;
  /** A human-readable name of the resource for the metadata (`resource_name`). */
  resourceName?: string;
}

/** What the resource understands, the same wherever it is deployed. */
export interface ScopePolicy<S extends string> {
  /** Every scope, weakest first (the metadata's `scopes_supported`, and a sign-in's challenge). */
  scopes: readonly S[];
  /** What a token's scopes grant, with what each includes. */
  grants: (scopes: Iterable<S>) => ReadonlySet<S>;
  /** Told of a token's first use (an audit log's sign-in line). */
  onSignIn?: (token: VerifiedToken) => void;
}

/** Tokens an operator issued beside OAuth (headless agents, scripts): their holder, with every scope. */
export interface StaticTokens {
  userForToken(token: string): string | undefined;
}

/** Who is calling, and what their token allows. */
export interface Caller<S extends string = string> {
  userId: string;
  scopes: ReadonlySet<S>;
  /** The OAuth client, for a token that names it. */
  clientId?: string;
  /** `oauth`: a token from the authorization server; `access_token`: an operator-issued one. */
  via: 'oauth' | 'access_token';
}

/** A request refused at the door: the status, the challenge and the audit outcome. */
export interface DoorRefusal {
  status: 401 | 403 | 503;
  message: string;
  headers: Record<string, string>;
  outcome: 'unauthenticated' | 'invalid_token' | 'insufficient_scope' | 'token_unverifiable';
  /** The user, where the token named one (a refusal for scope). */
  user?: string;
}

const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** What a browser's preflight for the metadata may send: the headers MCP clients add to their discovery. */
const METADATA_PREFLIGHT = {
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'mcp-protocol-version',
  'access-control-max-age': '600',
};

/**
 * An MCP endpoint as an OAuth 2.1 protected resource (MCP authorization, RFC 9728, RFC 8707,
 * RFC 6750): its metadata, the check of every request's bearer token, and the challenges that
 * send a client to sign in (401) or to ask for more scope (403).
 */
export class FrontDoor<S extends string = string> {
  readonly resource: string;
  readonly metadataUrl: string;
  private readonly verifier: TokenVerifier;
  private readonly names: ReadonlyMap<S, string>;

  constructor(
    private readonly settings: FrontDoorSettings<S>,
    /** The MCP endpoint's public URL: the resource, and the audience its tokens must name. */
    resource: string,
    private readonly policy: ScopePolicy<S>,
  ) {
    this.resource = resource;
    const url = new URL(resource);
    // RFC 9728 §3.1: the well-known segment goes between the host and the resource's path.
    this.metadataUrl = `${url.origin}${METADATA_PATH}${url.pathname === '/' ? '' : url.pathname}`;
    this.verifier = settings.verifier(resource, policy.onSignIn);
    this.names = new Map(policy.scopes.map((s) => [s, settings.scopeNames?.[s] ?? s]));
  }

  /** The RFC 9728 document. */
  metadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [...this.settings.authorizationServers],
      scopes_supported: [...this.names.values()],
      bearer_methods_supported: ['header'],
      ...(this.settings.resourceName ? { resource_name: this.settings.resourceName } : {}),
    };
  }

  /** Whether a request path is one of the metadata's: the root form, or the path form of the resource. */
  servesMetadataAt(pathname: string): boolean {
    if (!pathname.startsWith(METADATA_PATH)) return false;
    const rest = pathname.slice(METADATA_PATH.length);
    return rest === '' || rest === '/' || rest === new URL(this.resource).pathname;
  }

  /**
   * The caller of a request from its `Authorization` header: an operator's static token, else a
   * token the verifier accepts; a refusal (401, or 503 where the token could not be checked).
   */
  async admit(
    authorization: string | undefined,
    staticTokens?: StaticTokens,
  ): Promise<Caller<S> | DoorRefusal> {
    const token = /^Bearer +([^\s]+) *$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) {
      return this.unauthorized(
        'unauthenticated',
        'Unauthorized: sign in (OAuth) or send Authorization: Bearer <access token>',
      );
    }
    const staticUser = staticTokens?.userForToken(token);
    if (staticUser !== undefined)
      return { userId: staticUser, scopes: new Set(this.policy.scopes), via: 'access_token' };
    const verification = await this.verifier.verify(token);
    if (!verification.ok) return this.refusalOf(verification.rejection);
    const { subject, clientId } = verification.token;
    return {
      userId: subject,
      scopes: this.grantedBy(verification.token.scopes),
      ...(clientId ? { clientId } : {}),
      via: 'oauth',
    };
  }

  /** A 403 for a caller whose token lacks `needed` (RFC 6750 §3.1: the client may step up), or undefined. */
  checkScope(caller: Caller<S>, needed: S): DoorRefusal | undefined {
    if (caller.scopes.has(needed)) return undefined;
    const scope = this.names.get(needed) ?? needed;
    return {
      status: 403,
      message: `Forbidden: this call needs the scope ${scope}, which the access token was not granted`,
      headers: {
        'www-authenticate': this.challenge({
          error: 'insufficient_scope',
          description: `This call needs the scope ${scope}`,
          scope,
        }),
      },
      outcome: 'insufficient_scope',
      user: caller.userId,
    };
  }

  /**
   * Answers a request for the RFC 9728 document: GET and HEAD, and the CORS preflight of a
   * browser-based client, which sends `MCP-Protocol-Version` with its discovery (as it does to
   * the authorization server's metadata); any other method 405. CORS-open: no cookies involved.
   */
  answerMetadata(req: IncomingMessage, res: ServerResponse): void {
    const cors = { 'access-control-allow-origin': '*' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, ...METADATA_PREFLIGHT });
      return void res.end();
    }
    const readable = req.method === 'GET' || req.method === 'HEAD';
    const body = JSON.stringify(
      readable ? this.metadata() : { error: 'invalid_request', error_description: 'Method not allowed' },
    );
    const caching = readable
      ? { 'cache-control': 'public, max-age=300' }
      : { allow: METADATA_PREFLIGHT['access-control-allow-methods'] };
    res.writeHead(readable ? 200 : 405, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...caching,
      ...cors,
    });
    res.end(body);
  }

  /** What a token's scopes grant: a scope named as the issuer names it, or by its last segment. */
  private grantedBy(tokenScopes: readonly string[]): ReadonlySet<S> {
    const named = this.policy.scopes.filter((scope) => {
      const name = this.names.get(scope) ?? scope;
      const short = name.slice(name.lastIndexOf('/') + 1);
      return tokenScopes.some((s) => s === name || s === short);
    });
    return this.policy.grants(named);
  }

  private refusalOf(rejection: TokenRejection): DoorRefusal {
    if (rejection.kind === 'unavailable') {
      return {
        status: 503,
        message: `The access token could not be checked now (${rejection.reason}); try again shortly`,
        headers: { 'retry-after': '5' },
        outcome: 'token_unverifiable',
      };
    }
    return this.unauthorized('invalid_token', `Unauthorized: ${rejection.reason}`, rejection.reason);
  }

  private unauthorized(
    outcome: 'unauthenticated' | 'invalid_token',
    message: string,
    description?: string,
  ): DoorRefusal {
    const challenge = this.challenge({
      ...(outcome === 'invalid_token' ? { error: 'invalid_token', description: description ?? '' } : {}),
      // Every scope: the authorization server grants what the person may have; a call the grant
      // does not cover is then answered 403 with the scope to step up to.
      scope: [...this.names.values()].join(' '),
    });
    return { status: 401, message, headers: { 'www-authenticate': challenge }, outcome };
  }

  /** An RFC 6750 challenge naming the resource metadata (RFC 9728 §5.1). */
  private challenge(o: { error?: string; description?: string; scope: string }): string {
    const params = [
      ...(o.error ? [`error="${o.error}"`] : []),
      ...(o.description ? [`error_description="${quoted(o.description)}"`] : []),
      `resource_metadata="${this.metadataUrl}"`,
      `scope="${o.scope}"`,
    ];
    return `Bearer ${params.join(', ')}`;
  }
}

/** A quoted-string's content: no quote or backslash (RFC 6750 restricts error_description to these). */
const quoted = (text: string) => text.replace(/["\\]/g, "'");
