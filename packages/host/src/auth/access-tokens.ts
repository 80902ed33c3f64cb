import { createHash, timingSafeEqual } from 'node:crypto';
import { quoted } from '@toolhost/engine/internal';
import type { HostConfig } from '../config/host-config.js';
import { ConfigError } from '../config/load-config.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * One token given to two users would be answered as one of them (the last): the other's calls
 * would run with the wrong user's credentials. The message names the users, never the token.
 */
function refuseSharedTokens(tokens: ReadonlyMap<string, string>): void {
  const owners = new Map<string, string>();
  for (const [userId, token] of tokens) {
    const owner = owners.get(token);
    if (owner !== undefined) {
      throw new ConfigError(
        `Access tokens: users ${quoted(owner)} and ${quoted(userId)} have the same token (http.accessTokens, TOOLHOST_ACCESS_TOKENS); give each user a token of their own.`,
      );
    }
    owners.set(token, userId);
  }
}

/**
 * Bearer tokens the operator issues to MCP clients, each mapped to the user id whose
 * upstream credentials its calls use. Compared by digest in constant time.
 */
export class AccessTokens {
  private readonly entries: { digest: Buffer; userId: string }[];

  /**
   * By user id. A Map, or a record's own entries: a user named `__proto__` or `constructor` is
   * a user like any other, never a key that sets or reads an object's prototype.
   */
  constructor(
    tokens: Record<string, string> | ReadonlyMap<string, string>,
    /**
     * Callers must authenticate even with no token configured (OAuth is the front door): no
     * one is the local person, whom pages would otherwise trust as the operator.
     */
    private readonly required = false,
  ) {
    const byUser = tokens instanceof Map ? tokens : new Map(Object.entries(tokens));
    refuseSharedTokens(byUser);
    this.entries = [...byUser].map(([userId, token]) => ({ userId, digest: digest(token) }));
  }

  /** From config `http.accessTokens`, with env TOOLHOST_ACCESS_TOKENS ("user:token,user:token") added. */
  static fromConfig(config: HostConfig, env: NodeJS.ProcessEnv): AccessTokens {
    const fromEnv = new Map<string, string>();
    for (const pair of (env.TOOLHOST_ACCESS_TOKENS ?? '').split(',').filter((p) => p.trim())) {
      const at = pair.indexOf(':');
      const userId = pair.slice(0, at).trim();
      const token = pair.slice(at + 1).trim();
      if (at < 1 || token.length < 16) {
        throw new ConfigError(
          'TOOLHOST_ACCESS_TOKENS must be "user:token" pairs separated by commas, tokens of 16+ characters.',
        );
      }
      // A second token for the same user would silently replace the first: its client would
      // be refused with no word of why.
      if (fromEnv.has(userId)) {
        throw new ConfigError(
          `TOOLHOST_ACCESS_TOKENS names user ${quoted(userId)} twice: give each user one token.`,
        );
      }
      fromEnv.set(userId, token);
    }
    // The environment's token of a user replaces the file's, as the environment wins elsewhere.
    return new AccessTokens(new Map([...Object.entries(config.http?.accessTokens ?? {}), ...fromEnv]));
  }

  /**
   * What ties a sign-in to the user's current token (its digest, hex): undefined once the
   * token is removed, another once it is replaced.
   */
  bindingOf(userId: string): string | undefined {
    return this.entries.find((e) => e.userId === userId)?.digest.toString('hex');
  }

  /** Whether any person holds a token (with OAuth as the only door, none may). */
  get issued(): boolean {
    return this.entries.length > 0;
  }

  get enabled(): boolean {
    return this.required || this.entries.length > 0;
  }

  /** The user id of an `Authorization: Bearer …` header, or undefined. */
  userFor(authorization: string | undefined): string | undefined {
    const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    return m ? this.userForToken(m[1]!) : undefined;
  }

  /** The user id a bare access token belongs to, or undefined. */
  userForToken(token: string): string | undefined {
    const trimmed = token.trim();
    if (!trimmed) return undefined;
    const candidate = digest(trimmed);
    let found: string | undefined;
    for (const e of this.entries) if (timingSafeEqual(e.digest, candidate)) found = e.userId;
    return found;
  }
}
