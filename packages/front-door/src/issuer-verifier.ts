import { IntrospectionVerifier } from './introspection-verifier.js';
import { discoverIssuer, type IssuerMetadata } from './issuer-metadata.js';
import { remoteJwksVerifier, type TokenVerifier, unavailable, type Verification } from './token-verifier.js';

/** How an issuer's tokens are checked (a host's `http.authorization`). */
export interface IssuerSettings {
  /** The issuer's identifier: its metadata is discovered from it, unless the endpoints are named. */
  issuer: string;
  /** The issuer's JWKS, when not the one its metadata names. */
  jwksUri?: string;
  /** The JWT signing algorithms accepted (default: the asymmetric ones). */
  algorithms?: readonly string[];
  /** The claim that names the user (default `sub`). */
  subjectClaim?: string;
  /** Opaque tokens: the RFC 7662 endpoint (default: the metadata's) and the resource's client there. */
  introspection?: { endpoint?: string; clientId: string; clientSecret?: string };
}

/**
 * The issuer's check, built on first use from its metadata: JWTs against its JWKS, or opaque
 * tokens by introspection. A failed discovery is tried again at the next token (the issuer may
 * have been briefly away at start), not remembered.
 */
export class IssuerVerifier implements TokenVerifier {
  private ready: Promise<TokenVerifier> | undefined;

  constructor(
    private readonly auth: IssuerSettings,
    private readonly audience: readonly string[],
  ) {}

  async verify(token: string): Promise<Verification> {
    let verifier: TokenVerifier;
    try {
      this.ready ??= this.build();
      verifier = await this.ready;
    } catch {
      this.ready = undefined;
      return unavailable("the issuer's metadata could not be read");
    }
    return verifier.verify(token);
  }

  private async build(): Promise<TokenVerifier> {
    const { auth, audience } = this;
    const needsMetadata = auth.introspection ? !auth.introspection.endpoint : !auth.jwksUri;
    const metadata: IssuerMetadata | undefined = needsMetadata
      ? await discoverIssuer(auth.issuer)
      : undefined;
    const rules = {
      issuer: auth.issuer,
      audience,
      ...(auth.algorithms ? { algorithms: auth.algorithms } : {}),
      ...(auth.subjectClaim ? { subjectClaim: auth.subjectClaim } : {}),
    };
    if (auth.introspection) {
      const endpoint = auth.introspection.endpoint ?? metadata?.introspection_endpoint;
      if (!endpoint) throw new Error('the issuer names no introspection endpoint');
      return new IntrospectionVerifier({
        ...rules,
        endpoint,
        clientId: auth.introspection.clientId,
        clientSecret: auth.introspection.clientSecret ?? '',
      });
    }
    const jwksUri = auth.jwksUri ?? metadata?.jwks_uri;
    if (!jwksUri) throw new Error('the issuer names no jwks_uri');
    return remoteJwksVerifier({ ...rules, jwksUri });
  }
}
