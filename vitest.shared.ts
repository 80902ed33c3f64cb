/**
 * How every package's tests run their files. A worker runs file after file with the modules it
 * has loaded (a fresh process and module graph per file cost each file a second or more of CPU
 * on a busy machine, 1-3 s in the host's suite), so a helper module is evaluated once per worker:
 * one that starts servers registers its hooks from a function each file calls, and a file that
 * sets process-wide state undoes it (docs/development.md). The workspace packages' built
 * JavaScript loads as Node loads it (as the host's own CLI does), not through Vite's transform.
 */
export const sharedWorkers = {
  isolate: false,
  server: { deps: { external: [/\/packages\/[^/]+\/dist\//] } },
};
