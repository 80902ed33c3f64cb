#!/usr/bin/env node
// The command's entry is committed (not built), so that package managers can link it at
// install time, before `dist` exists; it runs the built CLI.
import('../dist/cli.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    process.stderr.write('toolhost: the host is not built yet; run `pnpm build` first.\n');
    process.exit(1);
  }
  throw error;
});
