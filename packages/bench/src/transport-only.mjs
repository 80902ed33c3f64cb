// `pnpm bench --transport-only [--profile DIR]`: the per-call rounds alone, over stdio and
// Streamable HTTP at c=1 and c=64, for toolhost (in each protocol era), the floor and the peer; a few minutes'
// focused measurement while working on the host's per-call cost, printed, not saved.
// With --profile, the three servers run under `node --cpu-prof` and write their profiles to
// DIR when they are stopped (one per server and transport, named by process id).
import { resolve } from 'node:path';
import { connectHttp, connectStdio } from './processes.mjs';
import { targetsTable, transportTables } from './report.mjs';
import { compare, warmup } from './rounds.mjs';
import { directSubject, mcpSubject, servers } from './subjects.mjs';
import { eraTargets } from './targets.mjs';

/** @typedef {import('./rounds.mjs').Counts} Counts */

/** Waits (10 s at most) until the process `pid` has gone. */
/** @param {number | null | undefined} pid */
async function exited(pid) {
  for (let i = 0; pid != null && i < 200; i += 1) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const FOCUSED = [1, 64];

/**
 * @param {string} upstream
 * @param {Counts} counts
 * @param {{ profileDir?: string, log: (text: string) => void }} options
 */
export async function transportOnly(upstream, counts, { profileDir, log }) {
  const S = servers(upstream);
  const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
  const direct = directSubject(upstream);
  await warmup(direct, counts);

  /**
   * Warms up and measures the servers over one transport, alternating with the direct
   * call, then closes them.
   * @param {string} label
   * @param {Record<'bare' | 'host' | 'hostStateless' | 'peer', import('./subjects.mjs').Connection & { close(): Promise<void> }>} conns
   */
  const measure = async (label, conns) => {
    const subjects = [
      mcpSubject('bare', conns.bare, S.bare.call),
      mcpSubject('host', conns.host, S.host.call),
      mcpSubject('hostStateless', conns.hostStateless, S.host.call),
      mcpSubject('peer', conns.peer, S.peer.call),
    ];
    for (const s of subjects) await warmup(s, counts);
    log(`${label}: measuring`);
    const phases = await compare([direct, ...subjects], counts, FOCUSED);
    for (const conn of Object.values(conns)) await conn.close();
    return phases;
  };

  log('stdio: starting the servers');
  const stdioPhases = await measure('stdio', {
    host: await connectStdio([...prof, ...S.host.stdio]),
    hostStateless: await connectStdio([...prof, ...S.host.stdio], 'stateless'),
    bare: await connectStdio([...prof, ...S.bare.stdio]),
    peer: await connectStdio([...prof, ...S.peer.stdio]),
  });

  log('Streamable HTTP: starting the servers');
  const http = {
    bare: await connectHttp((port) => [...prof, ...S.bare.http(port)]),
    host: await connectHttp((port) => [...prof, ...S.host.http(port)]),
    hostStateless: await connectHttp((port) => [...prof, ...S.host.http(port)], 'stateless'),
    peer: await connectHttp((port) => [...prof, ...S.peer.http(port)]),
  };
  const httpPhases = await measure('Streamable HTTP', http);
  // A profile is written when the server has shut down, which may take it a moment.
  if (profileDir) for (const conn of Object.values(http)) await exited(conn.pid);

  const phases = { stdio: stdioPhases, http: httpPhases };
  return `${transportTables(phases)}\n\n${targetsTable({ targets: eraTargets(phases) })}`;
}
