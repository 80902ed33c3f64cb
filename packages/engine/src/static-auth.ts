import type {
  AuthProvider,
  AuthProviderSetup,
  CredentialRequest,
  CredentialResult,
  SecretSource,
} from '@toolhost/core';

/**
 * Single-user stand-in: one access token per provider (a HubSpot private-app token, an
 * Airtable personal access token), the same for every user.
 */
export class StaticTokenAuthProvider implements AuthProvider {
  constructor(
    readonly id: string,
    private readonly token: string | undefined,
    private readonly hint = `configure a token for auth provider "${id}"`,
  ) {}

  /** Whether a token is configured (never the token itself), for set-up checks. */
  get configured(): boolean {
    return Boolean(this.token);
  }

  /** What to do when no token is configured. */
  get setupHint(): string {
    return this.hint;
  }

  setup(): AuthProviderSetup {
    return this.token ? { ok: true, detail: 'static token configured' } : { ok: false, detail: this.hint };
  }

  async getCredentials(_request: CredentialRequest): Promise<CredentialResult> {
    if (!this.token) return { kind: 'authorization_required', message: `No access token: ${this.hint}.` };
    // Every user sends the same token: one connection, whose limits they all share.
    return { kind: 'bearer', token: this.token, connection: 'static' };
  }
}

/** Secrets from a plain map (the host fills it from config, a secrets file and the environment). */
export class MapSecretSource implements SecretSource {
  private readonly values: ReadonlyMap<string, string>;
  constructor(
    values: Record<string, string | undefined>,
    private readonly where = 'the config file',
  ) {
    this.values = new Map(
      Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  }

  getSecret(name: string): string | undefined {
    return this.values.get(name);
  }

  describe(name: string): string {
    // Both places by their names, as the other missing-setting hints do (`toolSets.X.settings.y`).
    return `set the environment variable ${name}, or secrets.${name} in ${this.where}`;
  }
}
