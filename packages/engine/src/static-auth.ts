import type {
  AuthProvider,
  AuthProviderSetup,
  CredentialRequest,
  CredentialResult,
  SecretSource,
} from '@toolhost/core';
import { quoted } from './quoted.js';

/**
 * Values left where a credential belongs: the stand-ins the README and config docs show
 * (`<HubSpot private-app token>`, `<token>`, `"..."`), a `${…}` template no one filled in, and
 * the usual `changeme`, `xxx`, `your_token_here`, `TODO`. Whole values only, so that no real
 * credential matches: HubSpot's `pat-na1-…`, Airtable's `pat….…` and Customer.io's hex keys
 * have none of these shapes.
 */
const PLACEHOLDER =
  /^(<.*>|\$\{.*\}|\{\{.*\}\}|\{[^"':,{}]*\}|\.{3,}|…|[-_.x*]*(xxx|\*{3})[-_.x*]*|(change|replace)[-_ ]?me|todo|tbd|fixme|placeholder|dummy|token|secret|password|api[-_ ]?key|(your|insert|enter|paste)[-_ ].*(token|key|secret|password|credential).*|your[-_]?(token|key|secret|password|api[-_ ]?key)\w*|.*[-_ ]here)$/i;

/**
 * What a credential's value holds where it cannot be one (`a placeholder, not a real value`),
 * or undefined: blank or a stand-in, sent upstream, would only be refused. A line break inside
 * is two values pasted together or a wrapped line: no token or key has one, and a header cannot
 * carry it (it went out joined, and the vendor's 401 said nothing of why).
 */
export function credentialProblem(value: string): string | undefined {
  // Quotes an env file kept (Docker's `--env-file` keeps them): `"<token>"` is `<token>`.
  const bare = value
    .trim()
    .replace(/^(["'])(.*)\1$/s, '$2')
    .trim();
  if (bare === '' || PLACEHOLDER.test(bare)) return 'a placeholder, not a real value';
  if (/[\r\n]/.test(value.trim())) return 'a line break inside, which no token or key has';
  return undefined;
}

/**
 * Single-user stand-in: one access token per provider (a HubSpot private-app token, an
 * Airtable personal access token), the same for every user.
 */
export class StaticTokenAuthProvider implements AuthProvider {
  constructor(
    readonly id: string,
    private readonly token: string | undefined,
    private readonly hint = `configure a token for auth provider "${id}"`,
    /**
     * Where the token was set (`CRM_AUTH_PROVIDER_TOKEN`), for naming it when it is a placeholder
     * or the upstream refuses it (`AuthProvider.source`): the place a person replaces it.
     */
    readonly source?: string,
    /**
     * Other places a token is set for this provider, unused while `source` is set
     * (`auth.providers.crm-auth-provider.token` under `CRM_AUTH_PROVIDER_TOKEN`): a person who
     * stops the token must remove them too, or the next start sends theirs.
     */
    readonly overrides: readonly string[] = [],
  ) {}

  /**
   * Where the token is set, as a message names it after "set in" (never the token):
   * `CRM_AUTH_PROVIDER_TOKEN, which overrides auth.providers.crm-auth-provider.token`.
   */
  get setIn(): string | undefined {
    if (!this.source) return undefined;
    return this.overrides.length === 0
      ? this.source
      : `${this.source}, which overrides ${this.overrides.join(' and ')}`;
  }

  /** Whether a token is configured (never the token itself), for set-up checks. */
  get configured(): boolean {
    return Boolean(this.token);
  }

  /** What is wrong with the configured token (`a placeholder, not a real value`), or undefined. */
  get problem(): string | undefined {
    return this.token ? credentialProblem(this.token) : undefined;
  }

  /** What to do when no token is configured. */
  get setupHint(): string {
    return this.hint;
  }

  /**
   * Why a person revoking this provider's connection finds none: every user's calls send the
   * one token, stopped where it is set, in every place it is (never the token itself).
   */
  get notAConnection(): string {
    const where = this.setIn ? ` (set in ${this.setIn})` : '';
    const places = this.source ? [this.source, ...this.overrides].join(' and ') : 'it';
    const holding = this.problem
      ? ` That token holds ${this.problem}: its calls are refused until it is replaced.`
      : '';
    return `${quoted(this.id)} is configured with a static token${where}, not OAuth: there is no stored connection to revoke. To stop using the token, unset or remove ${places} and restart the host; revoke it at the vendor to end it everywhere.${holding}`;
  }

  setup(): AuthProviderSetup {
    if (!this.token) return { ok: false, detail: this.hint };
    const problem = credentialProblem(this.token);
    if (problem) return { ok: false, detail: `${this.holds(problem)}; ${this.hint}` };
    return { ok: true, detail: this.setIn ? `static token set in ${this.setIn}` : 'static token configured' };
  }

  /** What is wrong with the token, and where, naming a place it overrides (whose token is not the one sent). */
  private holds(problem: string): string {
    const over = this.overrides.length > 0 ? ` (and overrides ${this.overrides.join(' and ')})` : '';
    return `${this.source ?? 'the token'} holds ${problem}${over}`;
  }

  async getCredentials(_request: CredentialRequest): Promise<CredentialResult> {
    if (!this.token) return { kind: 'authorization_required', message: `No access token: ${this.hint}.` };
    const problem = credentialProblem(this.token);
    if (problem)
      return {
        kind: 'authorization_required',
        message: `No access token: ${this.holds(problem)}; ${this.hint}.`,
      };
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
