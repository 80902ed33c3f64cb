import type { ReplicaSessions } from '../replicas.js';
import type { HttpSession } from './http-sessions.js';

/**
 * The completion notices stored for a session while no replica held its event stream (the one
 * that did died, or the client had not opened it again yet), sent on the stream just opened.
 */
export async function deliverStored(session: HttpSession, shared: ReplicaSessions): Promise<void> {
  await sendTaken(session, shared, await shared.takeNotices(session.id).catch(() => []));
}

/**
 * A notice published for a session whose stream is open here: sent if this replica takes it, or
 * may have (Redis failed to answer): twice at worst, which clients ignore, rather than never.
 */
export async function deliverPublished(session: HttpSession, shared: ReplicaSessions, id: string) {
  if (await shared.claimNotice(session.id, id).catch(() => true)) await sendTaken(session, shared, [id]);
}

/**
 * Sends notices taken from the store, where they were the only copy: those the stream did not
 * take (it closed in between) go back, for the stream the client has or opens next, anywhere.
 */
async function sendTaken(session: HttpSession, shared: ReplicaSessions, ids: string[]): Promise<void> {
  const notice = (elicitationId: string) =>
    ({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } }) as const;
  const unsent = ids.filter((elicitationId) => !session.transport.sendOnStream(notice(elicitationId)));
  await shared.putBackNotices(session.id, unsent).catch(() => {});
}
