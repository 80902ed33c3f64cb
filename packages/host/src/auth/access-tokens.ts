import { createHash, timingSafeEqual } from 'node:crypto';
import type { HostConfig } from '../config/host-config.js';
import { ConfigError } from '../config/load-config.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Bearer tokens the operator issues to MCP clients, each mapped to the user id whose
 * upstream credentials its calls use. Compared by digest in constant time.
 */
export class AccessTokens {
  private readonly entries: { digest: Buffer; userId: string }[];

  constructor(tokens: Record<string, string>) {
    this.entries = Object.entries(tokens).map(([userId, token]) => ({ userId, digest: digest(token) }));
  }

  /** From config `http.accessTokens`, with env TOOLHOST_ACCESS_TOKENS ("user:token,user:token") added. */
  static fromConfig(config: HostConfig, env: NodeJS.ProcessEnv): AccessTokens {
    const tokens: Record<string, string> = { ...config.http?.accessTokens };
    for (const pair of (env.TOOLHOST_ACCESS_TOKENS ?? '').split(',').filter((p) => p.trim())) {
      const at = pair.indexOf(':');
      const userId = pair.slice(0, at).trim();
      const token = pair.slice(at + 1).trim();
      if (at < 1 || token.length < 16) {
        throw new ConfigError(
          'TOOLHOST_ACCESS_TOKENS must be "user:token" pairs separated by commas, tokens of 16+ characters.',
        );
      }
      tokens[userId] = token;
    }
    return new AccessTokens(tokens);
  }

  get enabled(): boolean {
    return this.entries.length > 0;
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
