import type { Cluster, Redis } from 'ioredis';
import { within } from './within.js';

/** ioredis's ClusterSubscriber (private on the Cluster): the one connection all its SUBSCRIBEs use. */
interface ClusterSubscriber {
  getInstance(): Redis | null;
}

export interface SubscriberWatchOptions {
  /** How often the subscriber connection is asked. */
  everyMs: number;
  /** How long it has to answer before it is cut. */
  timeoutMs: number;
}

/**
 * Keeps a Redis Cluster client's subscription on a node that answers, and tells `moved` each
 * time the channels are heard on another connection than before. ioredis holds a cluster's
 * subscription on one node of its choosing (a replica as likely as a master) and moves it only
 * when that connection ends: a hung node (SIGSTOP, a stalled VM, a master the cluster failed
 * over) keeps its socket open, and the subscription stays there, deaf, while every command to
 * the masters succeeds. And it moves it silently (the Cluster says 'ready' only once), so what
 * was published meanwhile is never read back.
 *
 * Every `everyMs` the subscriber connection is PINGed (PING is allowed to a subscribed
 * connection); one silent for `timeoutMs` is cut, and ioredis picks another node and subscribes
 * there. Its SUBSCRIBE goes before the next PING on the same connection, so a new connection
 * that answers that PING hears the channels: `moved` is told then. Answers the stop.
 */
export function watchClusterSubscriber(
  cluster: Cluster,
  moved: () => void,
  options: SubscriberWatchOptions,
): () => void {
  const found = (cluster as unknown as { subscriber?: Partial<ClusterSubscriber> }).subscriber;
  // A private part of ioredis: another version may name it otherwise. The host then serves as it
  // did before this watch (a subscription on a hung node heard again once that node wakes).
  if (typeof found?.getInstance !== 'function') return () => {};
  const subscriber = found as ClusterSubscriber;
  // Moved from the connection it has now: what was published on the way was missed.
  let heard = subscriber.getInstance() ?? undefined;
  let checking = false;
  const check = async () => {
    const connection = subscriber.getInstance();
    if (checking || !connection) return;
    checking = true;
    try {
      const answered = await within(options.timeoutMs, connection.ping()).then(
        () => true,
        () => false,
      );
      // Still the one asked: ioredis may have moved the subscription while the PING waited.
      if (subscriber.getInstance() !== connection) return;
      if (!answered) connection.disconnect();
      else if (connection !== heard) {
        const before = heard;
        heard = connection;
        if (before) moved();
      }
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), options.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
