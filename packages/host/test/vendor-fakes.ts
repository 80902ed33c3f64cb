import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { type FakeOAuthServer, startFakeOAuthServer } from './fake-oauth-server.js';

/** The vendor a test file's hosts talk to: its OAuth server and its API, both on loopback. */
export interface VendorFakes {
  oauth: FakeOAuthServer;
  upstream: RecordingUpstream;
  /** Before each test: forgets grants and requests, and answers every request 200 `{ ok: true }` again. */
  reset(): void;
  close(): Promise<void>;
}

/** Started once a file (a server start costs more than a test that reuses it). */
export async function startVendorFakes(): Promise<VendorFakes> {
  const oauth = await startFakeOAuthServer();
  const upstream = await startRecordingUpstream().catch(async (e: unknown) => {
    await oauth.close();
    throw e;
  });
  return {
    oauth,
    upstream,
    reset() {
      oauth.reset();
      upstream.reset();
      upstream.respond(() => ({ status: 200, body: { ok: true } }));
    },
    async close() {
      await oauth.close();
      await upstream.close();
    },
  };
}
