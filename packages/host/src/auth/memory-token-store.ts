import type { StoredToken, TokenStore } from '@toolhost/core';

/** Tokens in memory only: for tests and for hosts with no encryption key (lost on restart). */
export class MemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, StoredToken>();

  async get(providerId: string, userId: string): Promise<StoredToken | undefined> {
    return this.tokens.get(`${providerId}\u0000${userId}`);
  }

  async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    this.tokens.set(`${providerId}\u0000${userId}`, token);
  }

  async delete(providerId: string, userId: string): Promise<void> {
    this.tokens.delete(`${providerId}\u0000${userId}`);
  }
}
