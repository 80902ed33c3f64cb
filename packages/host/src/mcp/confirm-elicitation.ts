import type { ConfirmWrite } from '@toolhost/write-safety';
import { confirmationMessage } from '@toolhost/write-safety/confirmation-message';
import { clientCapabilitiesOf } from './client-identity.js';
import { servesModernEra } from './protocol-eras.js';
import type { RequestId, Server, ServerContext } from './sdk.js';

/** A person reads and decides; the SDK's 60 s default would cancel them mid-thought. */
const CONFIRM_TIMEOUT_MS = 10 * 60_000;

/**
 * Whether this server's tool calls may ask their client something before answering: writes
 * are confirmed (`tools.confirmWrites`) and the client declared form elicitation (an empty
 * `elicitation` capability means form, which the SDK already normalises). The one place that
 * decides, since the HTTP transport commits an answer's form on it (see answersDirectly).
 */
export function asksBeforeAnswering(server: Server, confirmWrites: boolean | undefined): boolean {
  // 2026-07-28 has no server-to-client requests: a write there is previewed to apply instead.
  if (!confirmWrites || servesModernEra(server)) return false;
  return !!server.getClientCapabilities()?.elicitation?.form;
}

/** The key of the person's answer among a 2026-07-28 retry's `inputResponses`. */
export const CONFIRM_INPUT = 'confirm';
/** The key of a sign-in (URL elicitation) among a 2026-07-28 retry's `inputResponses`. */
export const SIGNIN_INPUT = 'signin';

/**
 * Whether this server's tool calls ask with `input_required` (MCP 2026-07-28, which has no
 * server-to-client requests): writes are confirmed and this request's client declared form
 * elicitation (an empty `elicitation` capability means form). A client that did not gets the
 * preview to apply instead, as on the session era.
 */
export function asksWithInputRequired(
  server: Server,
  ctx: ServerContext,
  confirmWrites: boolean | undefined,
): boolean {
  if (!confirmWrites || !servesModernEra(server)) return false;
  const elicitation = clientCapabilitiesOf(server, ctx)?.elicitation;
  return !!elicitation && (!!elicitation.form || Object.keys(elicitation).length === 0);
}

/** The box to tick: one object for all, as the SDK's Ajv keeps each schema it checks an answer by for the server's life. */
const SEND_BOX = {
  type: 'object' as const,
  properties: { send: { type: 'boolean' as const, title: 'Send this request', default: false } },
  required: ['send'],
};

/** The question of a confirmation: the request as the person reads it, and a box to tick. */
export function confirmationForm(write: Parameters<ConfirmWrite>[0]) {
  return { message: confirmationMessage(write), requestedSchema: SEND_BOX };
}

/**
 * Whether the server sends its client nothing about this request before the answer, and the
 * answer may take a while: a tool call, from a server that asks nothing first.
 */
export function answersDirectly(
  server: Server,
  confirmWrites: boolean | undefined,
  request: { method: string },
): boolean {
  return request.method === 'tools/call' && !asksBeforeAnswering(server, confirmWrites);
}

/**
 * Confirmation through MCP form elicitation, for a client that can be asked (see
 * asksBeforeAnswering). Only an accepted form
 * with `send` ticked sends; a decline, a dismissal, an error or no answer sends nothing.
 * `relatedRequestId` puts the question on the stream of the tools/call it belongs to (over
 * Streamable HTTP, the POST's SSE stream).
 */
export function elicitationConfirm(server: Server, requestId: RequestId): ConfirmWrite {
  return async (write, signal) => {
    try {
      const answer = await server.elicitInput(
        { mode: 'form', ...confirmationForm(write) },
        { signal, relatedRequestId: requestId, timeout: CONFIRM_TIMEOUT_MS },
      );
      return answer.action === 'accept' && answer.content?.send === true;
    } catch {
      return false;
    }
  };
}
