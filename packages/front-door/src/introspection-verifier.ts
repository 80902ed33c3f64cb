import * as oauth from 'oauth4webapi';
import { requestOptionsFor } from './issuer-metadata.js';
import {
  acceptedToken,
  invalid,
  type TokenVerifier,
  unavailable,
  type Verification,
} from './token-verifier.js';

export interface IntrospectionOptions {
  /** The issuer's identifier: an introspected token's `iss`, where it names one, must be it. */
  issuer: string;
  /** The issuer's RFC 7662 endpoint. */
  endpoint: string;
  /** The resource's own client at the issuer, which may introspect. */
  clientId: string;
  clientSecret: string;
  /** The audiences that mean this resource (RFC 8707). */
  audience: string | readonly string[];
  subjectClaim?: string;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * Opaque access tokens, checked by asking the issuer (RFC 7662). An inactive token, one for
 * another audience or issuer, or one past its `exp` is refused; an endpoint that does not
 * answer makes the token unverifiable (retry), not invalid.
 */
export class IntrospectionVerifier implements TokenVerifier {
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly auth: oauth.ClientAuth;
  private readonly audiences: readonly string[];

  constructor(private readonly o: IntrospectionOptions) {
    this.as = { issuer: o.issuer, introspection_endpoint: o.endpoint };
    this.client = { client_id: o.clientId };
    this.auth = oauth.ClientSecretBasic(o.clientSecret);
    this.audiences = [o.audience].flat();
  }

  async verify(token: string): Promise<Verification> {
    let claims: oauth.IntrospectionResponse;
    try {
      const response = await oauth.introspectionRequest(this.as, this.client, this.auth, token, {
        ...requestOptionsFor(this.o.endpoint, this.o.timeoutMs ?? 5_000),
      });
      claims = await oauth.processIntrospectionResponse(this.as, this.client, response);
    } catch {
      return unavailable("the issuer's introspection endpoint did not answer");
    }
    if (!claims.active) return invalid('the token is not active');
    const record = claims as Record<string, unknown>;
    const now = (this.o.now ?? Date.now)() / 1000;
    if (typeof claims.exp === 'number' && claims.exp <= now) return invalid('the token has expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now + 30) return invalid('the token is not valid yet');
    if (claims.iss !== undefined && claims.iss !== this.o.issuer) {
      return invalid('the token was issued by another issuer');
    }
    // RFC 8707: a token must say it is for this resource; one that names no audience could be
    // for any resource of the issuer.
    const aud = [claims.aud ?? []].flat();
    if (!aud.some((a) => this.audiences.includes(a)))
      return invalid('the token was issued for another resource');
    return acceptedToken(record, this.o.subjectClaim);
  }
}
