import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
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

/** The file store, counting its writes. */
class Watched extends FileStateStore {
  writes = 0;
  protected override async write(text: string): Promise<void> {
    this.writes += 1;
    await super.write(text);
  }
}

/** The store as the host opens it: another process on the same file takes the same lock file. */
const openStore = (path: string, now?: () => number) =>
  new FileStateStore(path, { lock: (at) => new FileLock(at), ...(now ? { now } : {}) });

const saved = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, { value: string }>;

describe('FileStateStore', () => {
  it('answers each change once the file holds it, and writes a burst of changes in a few writes', async () => {
    const path = fileIn();
    const store = new Watched(path, { lock: (at) => new FileLock(at) });
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
    const first = openStore(path, () => clock.now);
    await first.set('signing-key', 'sealed');
    await first.set('code:a', 'grant', 60);
    await first.set('grant:g', 'alive', 3600);
    expect(await first.take('code:a')).toBe('grant');

    clock.now += 120_000;
    const second = openStore(path, () => clock.now);
    expect(await second.get('signing-key')).toBe('sealed');
    expect(await second.get('grant:g')).toBe('alive');
    expect(await second.get('code:a')).toBeUndefined();
  });
});

describe('FileStateStore shared by two processes', () => {
  it('keeps what each writes: a registration of one survives the other writing next', async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    await a.set('client:a', 'registered on a');
    await b.set('client:b', 'registered on b');
    await a.set('grant:a', 'granted on a');
    await b.delete('client:b');
    const next = openStore(path);
    expect(await next.get('client:a')).toBe('registered on a');
    expect(await next.get('client:b')).toBeUndefined();
    expect(await next.get('grant:a')).toBe('granted on a');
    expect(await b.get('grant:a')).toBe('granted on a');
  });

  it('loses none of two bursts written at once, and gives each code to one of them', async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    await a.set('code:x', 'grant');
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => [
        a.set(`client:a${i}`, 'a', 600),
        b.set(`client:b${i}`, 'b', 600),
      ]).flat(),
    );
    const taken = await Promise.all([a.take('code:x'), b.take('code:x'), a.take('code:x'), b.take('code:x')]);
    expect(taken.filter((v) => v !== undefined)).toEqual(['grant']);
    const keys = Object.keys(saved(path));
    expect(keys).toHaveLength(100);
    expect(keys).not.toContain('code:x');
  });

  it("keeps its own counts over a reload of the other's writes", async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    for (let i = 0; i < 5; i++) await a.increment('failures:addr', 300);
    await b.set('client:b', 'b');
    expect(await a.get('client:b')).toBe('b');
    expect(await a.increment('failures:addr', 300)).toBe(6);
  });
});
