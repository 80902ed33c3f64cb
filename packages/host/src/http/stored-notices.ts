import type { ReplicaSessions } from '../replicas.js';
import type { HttpSession } from './http-sessions.js';

const COMPLETE = 'notifications/elicitation/complete';
const NOT_LOST = () => false;
const LOST = () => true;

/**
 * The completion notices stored for a session while no replica held its event stream (the one
 * that did died, or the client had not opened it again yet), sent on the stream just opened.
 */
export async function deliverStored(
  session: HttpSession,
  shared: ReplicaSessions,
  again = true,
): Promise<void> {
  await sendTaken(session, shared, await shared.takeNotices(session.id).catch(() => []), again);
}

/**
 * A notice published for a session whose stream is open here: sent if this replica takes it, or
 * may have (Redis failed to answer): twice at worst, which clients ignore, rather than never.
 */
export async function deliverPublished(session: HttpSession, shared: ReplicaSessions, id: string) {
  if (await shared.claimNotice(session.id, id).catch(() => true))
    await sendTaken(session, shared, [id], true);
}

/**
 * Sends notices taken from the store, where they were the only copy: one the stream did not take
 * (it closed in between) goes back, for the stream the client opens next. A stream opened
 * meanwhile may have looked already: it looks again.
 */
async function sendTaken(session: HttpSession, shared: ReplicaSessions, ids: string[], again: boolean) {
  let putBack = false;
  for (const elicitationId of ids) {
    const notice = { jsonrpc: '2.0', method: COMPLETE, params: { elicitationId } } as const;
    if (session.transport.sendOnStream(notice)) continue;
    const lost = await shared.putBackNotice(session.id, elicitationId).then(NOT_LOST, LOST);
    putBack ||= !lost;
  }
  if (putBack && again && session.transport.streaming) await deliverStored(session, shared, false);
}
