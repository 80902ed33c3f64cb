import { createHash } from 'node:crypto';
import {
  type AuthProvider,
  type AuthRequirement,
  type CallContext,
  type CredentialRequest,
  type SecretSource,
  ToolError,
} from '@toolhost/core';
import { cut, escapeUnseen } from './quoted.js';
import { credentialProblem } from './static-auth.js';

// The credential a call is sent with: a configured secret or an auth provider's token, with
// every form in which an echoing upstream could hand it back (for redaction).

/** The header a tool's credential travels in: every auth kind sends `authorization`. */
export function credentialHeaderOf(auth: AuthRequirement): string | undefined {
  return auth.kind === 'none' ? undefined : 'authorization';
}

export type Credential = {
  header: string;
  value: string;
  /** What was sent, in the forms an echoing upstream could return it (never returned to callers). */
  sent: string[];
  /** The provider's raw token, told back to it when the upstream rejects it. */
  token?: string;
  provider?: AuthProvider;
  request?: CredentialRequest;
  /** The vendor-side connection it acts for: the pacing bucket of `per: 'connection'` pacing. */
  connection: string;
};

/** Finds the credential each call needs: from the host's secrets or the tool's auth provider. */
export class CallCredentials {
  private readonly providers: Map<string, AuthProvider>;

  constructor(
    authProviders: readonly AuthProvider[],
    private readonly secrets: SecretSource | undefined,
  ) {
    this.providers = new Map(authProviders.map((p) => [p.id, p]));
  }

  async resolve(auth: AuthRequirement, context: CallContext): Promise<Credential | undefined> {
    switch (auth.kind) {
      case 'none':
        return undefined;
      case 'secret': {
        const value = await this.secrets?.getSecret(auth.secret, { userId: context.userId });
        // A stand-in ("<your-api-key>") is not sent: the vendor would only refuse it, in its words.
        const problem = value ? credentialProblem(value) : undefined;
        if (!value || problem) {
          const how = this.secrets?.describe?.(auth.secret) ?? `provide the secret ${auth.secret}`;
          const state = problem ? `holds ${problem}` : 'is not set';
          throw new ToolError({
            code: 'missing_secret',
            retryable: false,
            message: `This tool needs the secret ${auth.secret}, which ${state}: ${how}.`,
          });
        }
        if (auth.scheme === 'bearer') return secretCredential(auth.secret, value, `Bearer ${value}`, [value]);
        const basic = Buffer.from(`${value}:`).toString('base64');
        // The base64 of `secret:` carries the secret too, in padded and unpadded form.
        return secretCredential(auth.secret, value, `Basic ${basic}`, [
          value,
          basic,
          basic.replace(/=+$/, ''),
        ]);
      }
      case 'provider': {
        const provider = this.providers.get(auth.provider);
        if (!provider) {
          throw new ToolError({
            code: 'configuration_error',
            retryable: false,
            message: `The auth provider '${auth.provider}' is not configured on this host.`,
          });
        }
        const request: CredentialRequest = {
          userId: context.userId,
          scopes: auth.scopes,
          signal: context.signal,
          ...(context.onWait ? { onWait: context.onWait } : {}),
        };
        const result = await provider.getCredentials(request);
        if (result.kind === 'authorization_required')
          throw authorizationRequired(provider.id, auth.scopes, result);
        return {
          header: 'authorization',
          value: `Bearer ${result.token}`,
          sent: [result.token],
          token: result.token,
          provider,
          request,
          connection: `${provider.id}:${result.connection ?? context.userId}`,
        };
      }
    }
  }
}

/** The error a call answers while a person has yet to authorize the provider. */
export function authorizationRequired(
  provider: string,
  scopes: readonly string[],
  result: { url?: string; message?: string; id?: string },
): ToolError {
  return new ToolError({
    code: 'authorization_required',
    // Calling again unchanged fails the same way until a person authorizes: not retryable.
    retryable: false,
    message: result.message ?? `Authorization with '${provider}' is required before this tool can be used.`,
    authorization: {
      provider,
      scopes,
      ...(result.url ? { url: result.url } : {}),
      ...(result.id ? { id: result.id } : {}),
    },
  });
}

/**
 * A secret's credential. A secret names no user: calls sent with the same value act for the
 * same account, whose connection is named only when a pacing policy asks for it (a hash on
 * every call would be wasted otherwise).
 */
function secretCredential(secret: string, value: string, headerValue: string, sent: string[]): Credential {
  return {
    header: 'authorization',
    value: headerValue,
    sent,
    get connection() {
      return `secret:${secret}:${fingerprint(value)}`;
    },
  };
}

/** A short, one-way name for a secret value, so that a pacing key never carries the secret. */
function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 16);
}

/**
 * The credential a declaration sends, as an error names it (never its value): a provider's
 * token with where it was set, where the provider says (`AuthProvider.source`: a static
 * token's, or any provider's, wrapped or an embedder's own), the one thing a person can replace.
 */
export function credentialName(auth: AuthRequirement, provider?: AuthProvider): string | undefined {
  if (auth.kind === 'provider') {
    // Read as given: a provider written in JavaScript may hold anything there.
    const source: unknown = provider?.source;
    // Escaped and bounded as a caller's text is: an embedder's may be any string.
    const where =
      typeof source === 'string' && source !== '' ? ` set in ${escapeUnseen(cut(source, 200))}` : '';
    return `the token of auth provider ${auth.provider}${where}`;
  }
  if (auth.kind === 'secret') return `the secret ${auth.secret}`;
  return undefined;
}
