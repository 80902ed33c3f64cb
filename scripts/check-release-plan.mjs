#!/usr/bin/env node
// Fails when the release plan (`changeset status`) would publish a package at a bump its own
// changesets did not ask for beyond a patch — above all a major forced on a plugin by a
// compatible core release, which would break every team's peer ranges. Run by .ci/run and by
// the release-plan test on a scratch copy of the workspace.
//   node scripts/check-release-plan.mjs [workspace-dir]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const cwd = resolve(process.argv[2] ?? '.');
const require = createRequire(join(process.cwd(), 'package.json'));
const cli = require.resolve('@changesets/cli/bin.js');
const out = join(mkdtempSync(join(tmpdir(), 'release-plan-')), 'status.json');
execFileSync(process.execPath, [cli, 'status', '--output', out], {
  cwd,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const plan = JSON.parse(readFileSync(out, 'utf8'));
rmSync(out);

const RANK = { none: 0, patch: 1, minor: 2, major: 3 };
const asked = new Map();
for (const changeset of plan.changesets) {
  for (const { name, type } of changeset.releases) {
    if (RANK[type] > RANK[asked.get(name) ?? 'none']) asked.set(name, type);
  }
}

const problems = [];
for (const release of plan.releases) {
  const wanted = asked.get(release.name) ?? 'none';
  // A dependent may get a patch for an updated dependency range; anything more must be asked.
  if (RANK[release.type] > Math.max(RANK[wanted], RANK.patch)) {
    problems.push(
      `${release.name} would be released ${release.oldVersion} → ${release.newVersion} (${release.type}), but its changesets ask for ${wanted === 'none' ? 'no release' : `a ${wanted}`}`,
    );
  }
}
for (const release of plan.releases) {
  console.log(`${release.name}: ${release.oldVersion} → ${release.newVersion} (${release.type})`);
}
if (problems.length > 0) {
  console.error(`Release plan forces bumps no changeset asked for:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log('Release plan: every bump is one a changeset asked for.');
