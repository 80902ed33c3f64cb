import type { ServerResponse } from 'node:http';
import type { TokenRejection, TokenVerifier, VerifiedToken } from '@toolhost/front-door';
import type { AuditEntry } from '../../observability/audit-log.js';
import type { AccessTokens } from '../access-tokens.js';
import { HOST_SCOPES, type HostScope, TOOLS_READ, TOOLS_WRITE } from './scopes.js';

/**
 * How the MCP endpoint is protected, whoever issues the tokens: the authorization servers the
 * resource metadata names, and the check of a presented token. The host's own authorization
 * server hands one in with its in-process key set; a team's identity provider comes from config
 * (`frontDoorFromConfig`).
 */
export interface FrontDoorSettings {
  /** Issuer URLs of the authorization servers clients sign in at (RFC 9728 `authorization_servers`). */
  authorizationServers: readonly string[];
  /**
   * The token check for this resource, given its URL (the audience) once the server listens,
   * and told whom to tell of a token's first use (the audit log's sign-in line).
   */
  verifier: (resource: string, onFirstUse?: (token: VerifiedToken) => void) => TokenVerifier;
  /** The host scopes as the issuer names them (Entra ID: `api://…/tools.read`). */
  scopeNames?: Partial<Record<HostScope, string>>;
  /** A human-readable name of the resource for the metadata (`resource_name`). */
  resourceName?: string;
}

/** Who is calling, and what their token allows. */
export interface Caller {
  userId: string;
  scopes: ReadonlySet<HostScope>;
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

const ALL_SCOPES: ReadonlySet<HostScope> = new Set(HOST_SCOPES);

const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The MCP endpoint as an OAuth 2.1 protected resource (MCP authorization, RFC 9728, RFC 8707,
 * RFC 6750): its metadata, the check of every request's bearer token, and the challenges that
 * send a client to sign in (401) or to ask for more scope (403). Static access tokens are
 * honoured beside OAuth, with every scope, for headless agents and scripts.
 */
export class FrontDoor {
  readonly resource: string;
  readonly metadataUrl: string;
  private readonly verifier: TokenVerifier;
  private readonly names: Record<HostScope, string>;

  constructor(
    private readonly settings: FrontDoorSettings,
    /** The MCP endpoint's public URL: the resource, and the audience its tokens must name. */
    resource: string,
    /** The operator's audit log, if turned on: sign-ins (a token's first use) are recorded. */
    audit?: { record(entry: AuditEntry): void },
  ) {
    this.resource = resource;
    const url = new URL(resource);
    // RFC 9728 §3.1: the well-known segment goes between the host and the resource's path.
    this.metadataUrl = `${url.origin}${METADATA_PATH}${url.pathname === '/' ? '' : url.pathname}`;
    this.verifier = settings.verifier(
      resource,
      audit &&
        ((token) =>
          audit.record({
            event: 'authorization',
            outcome: 'sign_in',
            user: token.subject,
            ...(token.clientId ? { client: token.clientId } : {}),
          })),
    );
    this.names = {
      [TOOLS_READ]: settings.scopeNames?.[TOOLS_READ] ?? TOOLS_READ,
      [TOOLS_WRITE]: settings.scopeNames?.[TOOLS_WRITE] ?? TOOLS_WRITE,
    };
  }

  /** The RFC 9728 document. */
  metadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [...this.settings.authorizationServers],
      scopes_supported: HOST_SCOPES.map((s) => this.names[s]),
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
   * The caller of a request from its `Authorization` header: an operator's access token, else
   * a token the verifier accepts; a refusal (401, or 503 where the token could not be checked).
   */
  async admit(authorization: string | undefined, accessTokens: AccessTokens): Promise<Caller | DoorRefusal> {
    const token = /^Bearer +([^\s]+) *$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) {
      return this.unauthorized(
        'unauthenticated',
        'Unauthorized: sign in (OAuth) or send Authorization: Bearer <access token>',
      );
    }
    const staticUser = accessTokens.enabled ? accessTokens.userForToken(token) : undefined;
    if (staticUser !== undefined) return { userId: staticUser, scopes: ALL_SCOPES, via: 'access_token' };
    const verification = await this.verifier.verify(token);
    if (!verification.ok) return this.refusalOf(verification.rejection);
    const { subject, clientId } = verification.token;
    return {
      userId: subject,
      scopes: this.hostScopesOf(verification.token.scopes),
      ...(clientId ? { clientId } : {}),
      via: 'oauth',
    };
  }

  /** A 403 for a caller whose token lacks `needed` (RFC 6750 §3.1: the client may step up), or undefined. */
  checkScope(caller: Caller, needed: HostScope): DoorRefusal | undefined {
    if (caller.scopes.has(needed)) return undefined;
    const scope = this.names[needed];
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

  /** Answers the RFC 9728 document (CORS-open: browser-based clients read it). */
  answerMetadata(res: ServerResponse): void {
    const body = JSON.stringify(this.metadata());
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
    });
    res.end(body);
  }

  /** The token's scopes as host scopes: a name the issuer gives a host scope, or its last segment. */
  private hostScopesOf(tokenScopes: readonly string[]): ReadonlySet<HostScope> {
    const granted = new Set<HostScope>();
    for (const hostScope of HOST_SCOPES) {
      const name = this.names[hostScope];
      const short = name.slice(name.lastIndexOf('/') + 1);
      if (tokenScopes.some((s) => s === name || s === short)) granted.add(hostScope);
    }
    // tools:write includes tools:read.
    if (granted.has(TOOLS_WRITE)) granted.add(TOOLS_READ);
    return granted;
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
      // Every scope: the authorization server grants what the person may have; a write with a
      // read-only grant is then answered 403 with the scope to step up to.
      scope: HOST_SCOPES.map((s) => this.names[s]).join(' '),
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
