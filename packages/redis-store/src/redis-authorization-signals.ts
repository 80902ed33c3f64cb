import type { AuthorizationSignals, FlowWaiters } from './ports.js';
import type { RedisChannels } from './redis-channels.js';

const CHANNEL = 'toolhost:oauth:authorized';

/**
 * Completions told across replicas: the replica whose callback completed a flow publishes its
 * flow id, and the replica where a session waits for it (the one that answered the tool call)
 * tells its client. Redis unreachable: the replica that completed the flow tells its own
 * waiters; the others' clients succeed when they call again.
 */
export class RedisAuthorizationSignals implements AuthorizationSignals {
  private constructor(
    private readonly channels: RedisChannels,
    private readonly waiters: FlowWaiters,
  ) {}

  static async open(channels: RedisChannels, waiters: FlowWaiters): Promise<RedisAuthorizationSignals> {
    const signals = new RedisAuthorizationSignals(channels, waiters);
    await channels.listen(CHANNEL, (flowId) => signals.waiters.fire(flowId));
    return signals;
  }

  whenAuthorized(flowId: string, callback: () => void, owner: string): void {
    this.waiters.add(flowId, callback, owner);
  }

  async authorized(flowId: string): Promise<void> {
    try {
      await this.channels.publish(CHANNEL, flowId);
    } catch {
      this.waiters.fire(flowId);
    }
  }
}
