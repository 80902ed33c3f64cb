import { randomUUID } from 'node:crypto';
import { newSecret } from './secrets.js';
import type { StateStore } from './state-store.js';

/** An authorization request checked and waiting for the person to sign in and consent. */
export interface PendingRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  /** The browser that started it (its id hash): only that browser may finish it. */
  browser: string;
  /** The anti-forgery token of its forms. */
  csrf: string;
}

/** How long a request waits for its person. */
export const REQUEST_SECONDS = 600;

export class PendingRequests {
  constructor(private readonly store: StateStore) {}

  async open(request: Omit<PendingRequest, 'id' | 'csrf'>): Promise<PendingRequest> {
    const pending = { ...request, id: randomUUID(), csrf: newSecret() };
    await this.store.set(`request:${pending.id}`, JSON.stringify(pending), REQUEST_SECONDS);
    return pending;
  }

  async get(id: string | null | undefined): Promise<PendingRequest | undefined> {
    if (!id || id.length > 64) return undefined;
    const saved = await this.store.get(`request:${id}`);
    return saved === undefined ? undefined : (JSON.parse(saved) as PendingRequest);
  }

  /** Moves the request to a new browser id (after sign-in replaced the cookie). */
  async rebind(request: PendingRequest, browser: string): Promise<PendingRequest> {
    const moved = { ...request, browser };
    await this.store.set(`request:${request.id}`, JSON.stringify(moved), REQUEST_SECONDS);
    return moved;
  }

  /** Ends the request: a consent or refusal is given once. */
  take(id: string): Promise<string | undefined> {
    return this.store.take(`request:${id}`);
  }
}
