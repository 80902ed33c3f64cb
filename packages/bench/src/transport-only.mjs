// `pnpm bench --transport-only [--profile DIR]`: the per-call rounds alone, over stdio and
// Streamable HTTP at c=1 and c=64, for toolhost, the floor and the peer; a few minutes'
// focused measurement while working on the host's per-call cost, printed, not saved.
// With --profile, the three servers run under `node --cpu-prof` and write their profiles to
// DIR when they are stopped (one per server and transport, named by process id).
import { resolve } from 'node:path';
import { connectHttp, connectStdio } from './processes.mjs';
import { transportTables } from './report.mjs';
import { compare, warmup } from './rounds.mjs';
import { directSubject, mcpSubject, servers } from './subjects.mjs';

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

  log('stdio: starting the three servers');
  const stdio = {
    host: await connectStdio([...prof, ...S.host.stdio]),
    bare: await connectStdio([...prof, ...S.bare.stdio]),
    peer: await connectStdio([...prof, ...S.peer.stdio]),
  };
  const stdioSubjects = [
    mcpSubject('bare', stdio.bare, S.bare.call),
    mcpSubject('host', stdio.host, S.host.call),
    mcpSubject('peer', stdio.peer, S.peer.call),
  ];
  for (const s of stdioSubjects) await warmup(s, counts);
  log('stdio: measuring');
  const stdioPhases = await compare([direct, ...stdioSubjects], counts, FOCUSED);
  for (const conn of Object.values(stdio)) await conn.close();

  log('Streamable HTTP: starting the three servers');
  const http = {
    bare: await connectHttp((port) => [...prof, ...S.bare.http(port)]),
    host: await connectHttp((port) => [...prof, ...S.host.http(port)]),
    peer: await connectHttp((port) => [...prof, ...S.peer.http(port)]),
  };
  const httpSubjects = [
    mcpSubject('bare', http.bare, S.bare.call),
    mcpSubject('host', http.host, S.host.call),
    mcpSubject('peer', http.peer, S.peer.call),
  ];
  for (const s of httpSubjects) await warmup(s, counts);
  log('Streamable HTTP: measuring');
  const httpPhases = await compare([direct, ...httpSubjects], counts, FOCUSED);
  for (const conn of Object.values(http)) await conn.close();
  // A profile is written when the server has shut down, which may take it a moment.
  if (profileDir) for (const conn of Object.values(http)) await exited(conn.pid);

  return transportTables({ stdio: stdioPhases, http: httpPhases });
}
