#!/usr/bin/env node
// The command's entry is committed (not built), so that package managers can link it at
// install time, before `dist` exists; it runs the built CLI.
import module from 'node:module';

// Desktop clients spawn the server at every launch: on Node ≥ 22.1 the compiled code of the
// host's modules is kept on disk between starts (Node's own cache, in the system's temporary
// directory), which shortens every start after the first. Older Node has no such cache.
try {
  module.enableCompileCache?.();
} catch {
  // A cache that cannot be written (read-only temp directory) only costs the speed-up.
}
import('../dist/cli.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    process.stderr.write('toolhost: the host is not built yet; run `pnpm build` first.\n');
    process.exit(1);
  }
  throw error;
});
