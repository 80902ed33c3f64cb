import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in. With the durations of a previous run, Vitest's own: failed first,
 * then longest first. Without them (a fresh clone) Vitest starts the largest files first, and a
 * ten-line file that runs five replica scenarios on a Redis Cluster started last of ~100 and
 * ended the run alone for half a minute. Here a file weighs its size and that of the test
 * modules it imports (its scenarios and setups), so such files start among the first.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ran = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`);
    if (files.every(ran)) return super.sort(files);
    const weight = new Map(files.map((f) => [f, weightOf(f.moduleId)]));
    return [...files].sort((a, b) => weight.get(b)! - weight.get(a)!);
  }
}

/** The file's size and that of the test modules beside it that it imports (`./x.js`, written as `x.ts`). */
function weightOf(file: string): number {
  let weight = statSync(file).size;
  for (const [, local] of readFileSync(file, 'utf8').matchAll(/from '(\.\/[^']+)\.js'/g)) {
    const source = join(dirname(file), `${local}.ts`);
    if (existsSync(source)) weight += statSync(source).size;
  }
  return weight;
}
