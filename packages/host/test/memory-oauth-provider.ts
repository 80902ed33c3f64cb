import type { OAuthClientProvider } from '@modelcontextprotocol/client';

export interface MemoryOAuthProviderOptions {
  /** The client's redirect URI (read when the SDK asks: a test may learn its port later). */
  redirectUrl: string | (() => string);
  clientName: string;
  /** A client id metadata document URL: the client presents it instead of registering. */
  clientMetadataUrl?: string;
  /** A resource to ask tokens for instead of the one the server names (a token for another resource). */
  resourceOverride?: string;
}

/**
 * The SDK's OAuth client provider as an application implements it, its state in memory, and
 * the authorization URL it was sent to (a test's browser opens it).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  saved: Parameters<OAuthClientProvider['saveTokens']>[0] | undefined;
  readonly clientMetadataUrl?: string;
  private info: Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0] | undefined;
  private verifier = '';
  private discovery: unknown;

  constructor(private readonly options: MemoryOAuthProviderOptions) {
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl() {
    const { redirectUrl } = this.options;
    return typeof redirectUrl === 'function' ? redirectUrl() : redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.redirectUrl],
      // grant_types left to the SDK, which registers an interactive client for both grants,
      // so that an authorization server that gives refresh tokens only to clients registered
      // for them gives it one.
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: NonNullable<typeof this.info>) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<typeof this.saved>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  async validateResourceURL(serverUrl: string | URL, resource?: string): Promise<URL | undefined> {
    return new URL(this.options.resourceOverride ?? resource ?? serverUrl);
  }
}
