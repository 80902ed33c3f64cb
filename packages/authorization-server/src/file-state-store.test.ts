import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStateStore } from './file-state-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileIn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'file-state-store-'));
  dirs.push(dir);
  return join(dir, 'nested', 'authorization-server.json');
}

/** The file store, counting its writes and failing the ones it is told to. */
class Watched extends FileStateStore {
  writes = 0;
  failNext = false;
  protected override async write(text: string): Promise<void> {
    this.writes += 1;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk full');
    }
    await super.write(text);
  }
}

const saved = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, { value: string }>;

describe('FileStateStore', () => {
  it('answers each change once the file holds it, and writes a burst of changes in a few writes', async () => {
    const path = fileIn();
    const store = new Watched(path);
    const answered = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.set(`request:${i}`, `pending ${i}`, 600).then(() => saved(path)[`request:${i}`]?.value),
      ),
    );
    expect(answered).toEqual(Array.from({ length: 200 }, (_, i) => `pending ${i}`));
    expect(store.writes).toBeLessThanOrEqual(3);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('is read back whole by the next process, without what expired', async () => {
    const path = fileIn();
    const clock = { now: 1_000_000 };
    const first = new FileStateStore(path, () => clock.now);
    await first.set('signing-key', 'sealed');
    await first.set('code:a', 'grant', 60);
    await first.set('grant:g', 'alive', 3600);
    expect(await first.take('code:a')).toBe('grant');

    clock.now += 120_000;
    const second = new FileStateStore(path, () => clock.now);
    expect(await second.get('signing-key')).toBe('sealed');
    expect(await second.get('grant:g')).toBe('alive');
    expect(await second.get('code:a')).toBeUndefined();
  });

  it('fails the changes a failed write held, and writes them with the next change', async () => {
    const path = fileIn();
    const store = new Watched(path);
    await store.set('before', 'x');
    store.failNext = true;
    await expect(store.set('lost-write', 'y')).rejects.toThrow('disk full');
    expect(saved(path)['lost-write']).toBeUndefined();
    await store.set('after', 'z');
    expect(Object.keys(saved(path)).sort()).toEqual(['after', 'before', 'lost-write']);
  });
});
