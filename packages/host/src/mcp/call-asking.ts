import type { ToolOutcome } from '@toolhost/core';
import type { ConfirmWrite } from '@toolhost/write-safety';
import type { CallOptions } from '../host-api.js';
import type { CallAudit } from './call-audit.js';
import { clientCapabilitiesOf } from './client-identity.js';
import {
  asksBeforeAnswering,
  asksWithInputRequired,
  CONFIRM_INPUT,
  confirmationForm,
  elicitationConfirm,
  SIGNIN_INPUT,
} from './confirm-elicitation.js';
import type { ConfirmationPayload, ConfirmationStates } from './confirmation-state.js';
import {
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from './sdk.js';

/**
 * How a tool call asks before it sends (the person's confirmation of a write, a sign-in), one
 * strategy per protocol era, chosen per call by the server's era (see ToolCalls.answerKeyed).
 *
 * Why the legacy strategy is the host's own rather than the SDK 2.4's legacy `input_required`
 * shim (on by default, which would let the modern strategy serve both eras): the shim asks
 * only after the handler has returned, so the call would run twice (to the question, then
 * again with the answer), every session-era confirmation would spend a state in the shared
 * records, and an elicitation that fails or times out would answer an `isError` text result
 * ("Fulfilling input required … failed") where the host answers the structured `cancelled`
 * outcome and audits `confirmation_declined`. Retired once the shim can fail into the
 * handler (or the session era is dropped).
 */

/** One call, as a strategy sees it. */
export interface AskingCall {
  server: Server;
  ctx: ServerContext;
  confirmWrites: boolean | undefined;
  confirmations: ConfirmationStates;
  /** The user the call is made for. */
  userId: string;
  options: CallOptions;
  audit: CallAudit;
  run: (options: CallOptions) => Promise<ToolOutcome>;
  tool: string;
  /** Computed only where a state is redeemed or minted: most calls need none. */
  digest: () => string;
}

/** The call's outcome, or the question that ends the request first (modern era). */
export type Asked = { outcome: ToolOutcome } | { question: InputRequiredResult };

/**
 * The person's confirmation, noting a decline for the audit log: the caller's outcome is
 * `cancelled`, as for a cancelled call, and the audit log tells the two apart.
 */
function noteDeclined(confirm: ConfirmWrite, audit: CallAudit): ConfirmWrite {
  return async (write, signal) => {
    const agreed = await confirm(write, signal);
    if (!agreed) audit.declined = true;
    return agreed;
  };
}

/** Legacy era: a write is confirmed mid-call, by a form elicitation on the call's own stream. */
export async function askMidCall(call: AskingCall): Promise<Asked> {
  const { server, ctx, options } = call;
  if (asksBeforeAnswering(server, call.confirmWrites))
    options.confirm = noteDeclined(elicitationConfirm(server, ctx.mcpReq.id), call.audit);
  return { outcome: await call.run(options) };
}

/**
 * Modern era, where the server cannot ask its client mid-call. What it must ask first (the
 * person's confirmation of a write, a sign-in to the upstream) ends the request, with nothing
 * sent upstream, in `input_required`: the question and a signed `requestState`. The client
 * asks, then sends the call again with the answer and the state, which must be this user's,
 * for this very call and unexpired; the call is sent at most once per state.
 */
export async function askByRoundTrips(call: AskingCall): Promise<Asked> {
  const { ctx, options, confirmations: states, userId, tool } = call;
  const state = ctx.mcpReq.requestState<ConfirmationPayload>();
  if (state !== undefined) {
    const refused = states.refusal(state, userId, tool, call.digest());
    if (refused) throw new ProtocolError(ProtocolErrorCode.InvalidParams, refused);
    // Sent once per state: the same state again (an answer lost with its replica) gets the
    // first outcome, or is told that the request may have left, never a second request.
    options.confirmationId = state.n;
  }
  let asked: Parameters<ConfirmWrite>[0] | undefined;
  if (state?.k === 'confirm') {
    const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_INPUT);
    const agreed = answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.send === true;
    options.confirm = noteDeclined(async () => agreed, call.audit);
  } else if (asksWithInputRequired(call.server, ctx, call.confirmWrites)) {
    options.confirm = async (write) => {
      asked = write;
      return false;
    };
  }
  const outcome = await call.run(options);
  if (asked) {
    return {
      question: inputRequired({
        inputRequests: {
          [CONFIRM_INPUT]: inputRequired.elicit({ mode: 'form', ...confirmationForm(asked) }),
        },
        requestState: await states.mint(ctx, 'confirm', userId, tool, call.digest()),
      }),
    };
  }
  return signInFirst(call, outcome, state) ?? { outcome };
}

/** A call that needs the user to sign in, from a client that can open the URL: the question. */
function signInFirst(
  call: AskingCall,
  outcome: ToolOutcome,
  state: ConfirmationPayload | undefined,
): Promise<Asked> | undefined {
  const { ctx } = call;
  if (outcome.ok || outcome.error.code !== 'authorization_required' || !outcome.error.authorization?.url)
    return undefined;
  const url = outcome.error.authorization.url;
  // A person who would not sign in is not asked again and again: the structured error it is.
  const signin = state?.k === 'signin' ? inputResponse(ctx.mcpReq.inputResponses, SIGNIN_INPUT) : undefined;
  const declined = signin !== undefined && (signin.kind !== 'elicit' || signin.action !== 'accept');
  if (declined || !clientCapabilitiesOf(call.server, ctx)?.elicitation?.url) return undefined;
  const message = outcome.error.message;
  return call.confirmations
    .mint(ctx, 'signin', call.userId, call.tool, call.digest())
    .then((requestState) => ({
      question: inputRequired({
        inputRequests: { [SIGNIN_INPUT]: inputRequired.elicitUrl({ message, url }) },
        requestState,
      }),
    }));
}
