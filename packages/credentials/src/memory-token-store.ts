import { replacesStored, type StoredConnection, type StoredToken, type TokenStore } from '@toolhost/core';

/** Tokens in memory only: for tests and for hosts with no encryption key (lost on restart). */
export class MemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, StoredToken>();

  async get(providerId: string, userId: string): Promise<StoredToken | undefined> {
    return this.tokens.get(`${providerId}\u0000${userId}`);
  }

  async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    this.tokens.set(`${providerId}\u0000${userId}`, token);
  }

  async replace(
    providerId: string,
    userId: string,
    token: StoredToken,
    over?: StoredToken,
  ): Promise<boolean> {
    const stored = this.tokens.get(`${providerId}\u0000${userId}`);
    if (!replacesStored(stored, token, over)) return false;
    await this.set(providerId, userId, token);
    return true;
  }

  async delete(providerId: string, userId: string): Promise<void> {
    this.tokens.delete(`${providerId}\u0000${userId}`);
  }

  async list(filter: { userId?: string; providerId?: string } = {}): Promise<StoredConnection[]> {
    const out: StoredConnection[] = [];
    for (const [key, token] of this.tokens) {
      const [providerId, userId] = key.split('\u0000') as [string, string];
      if (filter.userId !== undefined && filter.userId !== userId) continue;
      if (filter.providerId !== undefined && filter.providerId !== providerId) continue;
      out.push({ providerId, userId, token });
    }
    return out;
  }
}
