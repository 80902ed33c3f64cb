import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { cookieValue } from './cookies.js';

/** What a browser is bound to: one flow of one provider, for one user. */
export interface BoundFlow {
  provider: string;
  flowId: string;
  state: string;
  userId: string;
}

const COOKIE_PREFIX = 'toolhost_flow_';
/** Cookies live as long as a pending authorization (10 minutes). */
const MAX_AGE_SECONDS = 600;

/**
 * Binds an OAuth flow to the browser that started it, as MCP 2025-11-25 asks of URL
 * elicitation ("verify that the user who completes the flow is the one who started it"):
 * the host's start step sets an HttpOnly, SameSite=Lax cookie carrying an HMAC of the
 * provider, state and user, and the callback is accepted only with that cookie. Lax lets the
 * authorization server's top-level redirect carry it; the key is per process, like the
 * pending flows it protects, so nothing needs configuring.
 * https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#safe-url-handling
 */
export class FlowBinding {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  private mac(flow: BoundFlow): Buffer {
    return createHmac('sha256', this.key).update(`${flow.provider}\n${flow.state}\n${flow.userId}`).digest();
  }

  /** The Set-Cookie header value that binds this browser to the flow. */
  cookie(flow: BoundFlow, secure: boolean): string {
    return `${COOKIE_PREFIX}${flow.flowId}=${this.mac(flow).toString('base64url')}; Path=/oauth/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  /** The Set-Cookie header value that drops the flow's cookie once it is done. */
  clear(flow: BoundFlow, secure: boolean): string {
    return `${COOKIE_PREFIX}${flow.flowId}=; Path=/oauth/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  /** Whether the request's Cookie header carries this flow's binding. */
  isBound(cookieHeader: string | undefined, flow: BoundFlow): boolean {
    const value = cookieValue(cookieHeader, `${COOKIE_PREFIX}${flow.flowId}`);
    if (value === undefined) return false;
    const presented = Buffer.from(value, 'base64url');
    const expected = this.mac(flow);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }
}
