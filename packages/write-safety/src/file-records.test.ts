import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@toolhost/core';
import { TokenCipher, TokenStoreError } from '@toolhost/credentials';
import { describe, expect, it, vi } from 'vitest';
import { FileRecords } from './file-records.js';
import { JOURNAL_FORMAT } from './record-journal.js';

const KEY = 'a-long-enough-test-key';
const HOUR = 3_600_000;

const dataDir = () => mkdtempSync(join(tmpdir(), 'write-records-'));

const FILE = 'write-records.enc.jsonl';

/** The file's records, each line opened with the key (what is really on disk). */
function opened(dir: string): Record<string, [string, number]> {
  const [header, ...lines] = readFileSync(join(dir, FILE), 'utf8').trimEnd().split('\n');
  const cipher = new TokenCipher(KEY, Buffer.from(JSON.parse(header!).salt, 'base64'));
  const out: Record<string, [string, number]> = {};
  for (const line of lines) {
    const [key, value, expires] = cipher.open(JSON.parse(line), JOURNAL_FORMAT) as [
      string,
      string | null,
      number,
    ];
    if (value === null) delete out[key];
    else out[key] = [value, expires];
  }
  return out;
}

describe('FileRecords', () => {
  it('keeps claims, values and removals across a reload, sealed and owner-only', async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY);
    expect(await records.add('claim', 'holder-1', HOUR)).toBe(true);
    await records.put('outcome', '{"body":"secret-invoice-text"}', HOUR);
    await records.put('gone', 'value', HOUR);
    await records.removeIf('gone', 'someone-else');
    await records.put('removed', 'mine', HOUR);
    await records.removeIf('removed', 'mine');

    const file = join(dir, FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const plain of ['secret-invoice-text', 'holder-1', 'claim', 'outcome'])
      expect(text).not.toContain(plain);
    expect(opened(dir).outcome?.[0]).toBe('{"body":"secret-invoice-text"}');
    // A host that stops gives the file up.
    await records.flush();

    const reopened = FileRecords.inDirectory(dir, KEY);
    expect(await reopened.add('claim', 'holder-2', HOUR)).toBe(false);
    expect(await reopened.get('claim')).toBe('holder-1');
    expect(await reopened.get('outcome')).toBe('{"body":"secret-invoice-text"}');
    expect(await reopened.get('gone')).toBe('value');
    expect(await reopened.get('removed')).toBeUndefined();
    await reopened.flush();
    expect(readdirSync(dir)).toEqual([FILE]);
  });

  it('drops expired records on load', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const dir = dataDir();
      const records = FileRecords.inDirectory(dir, KEY);
      await records.put('short', 'brief', HOUR);
      await records.put('long', 'kept', 3 * HOUR);
      vi.setSystemTime(Date.now() + 2 * HOUR);
      const reopened = FileRecords.inDirectory(dir, KEY);
      expect(await reopened.get('short')).toBeUndefined();
      expect(await reopened.get('long')).toBe('kept');

      await records.put('later', 'y', 3 * HOUR);
      expect(await FileRecords.inDirectory(dir, KEY).get('later')).toBe('y');
    } finally {
      vi.useRealTimers();
    }
  });

  it('settles every change of a burst only once the file holds it', async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY);
    const claims = await Promise.all(
      Array.from({ length: 40 }, (_, i) => records.add(`k${i % 20}`, `v${i}`, HOUR)),
    );
    expect(claims.filter(Boolean)).toHaveLength(20);
    const reopened = FileRecords.inDirectory(dir, KEY);
    for (let i = 0; i < 20; i += 1) expect(await reopened.get(`k${i}`)).toBe(`v${i}`);
  });

  it('refuses a wrong key or an altered file instead of starting empty', async () => {
    const dir = dataDir();
    await FileRecords.inDirectory(dir, KEY).put('k', 'v', HOUR);
    expect(() => FileRecords.inDirectory(dir, 'another-long-key-xx')).toThrow(
      /Cannot decrypt write-records file .*wrong key, or the file was altered/,
    );
    const file = join(dir, FILE);
    const [header, line] = readFileSync(file, 'utf8').split('\n');
    const sealed = JSON.parse(line!);
    sealed.data = Buffer.from('tampered').toString('base64');
    writeFileSync(file, `${header}\n${JSON.stringify(sealed)}\n`);
    expect(() => FileRecords.inDirectory(dir, KEY)).toThrow(TokenStoreError);
  });

  it('refuses a file that is not a write-records store, naming it and leaving it as it is', () => {
    for (const text of [
      'null\n',
      '[]\n',
      '{}\n',
      'half-writ\n',
      '{"format":"toolhost-write-records-v2","salt":1}\n',
      '',
    ]) {
      const dir = dataDir();
      const file = join(dir, FILE);
      writeFileSync(file, text);
      let error: unknown;
      try {
        FileRecords.inDirectory(dir, KEY);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(TokenStoreError);
      expect((error as Error).message, text).toContain(file);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it("refuses the token store's file: each store reads only its own format", async () => {
    const dir = dataDir();
    await FileRecords.inDirectory(dir, KEY).put('k', 'v', HOUR);
    const { EncryptedFileTokenStore } = await import('@toolhost/credentials');
    expect(() => new EncryptedFileTokenStore(join(dir, FILE), KEY)).toThrow(/not JSON/);
  });

  it('refuses a new record beyond its bounds, as a retryable tool error, and keeps the others', async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY, { maxRecords: 2, maxChars: 1000 });
    await records.put('a', '1', HOUR);
    expect(await records.add('b', '2', HOUR)).toBe(true);
    const full = await records.add('c', '3', HOUR).catch((e: unknown) => e);
    expect(ToolError.isInstance(full) && full.info.code).toBe('store_unavailable');
    expect((full as Error).message).toMatch(/is full/);
    await records.put('a', 'replaced', HOUR);
    expect(await records.get('a')).toBe('replaced');
    await records.removeIf('b', '2');
    await records.put('c', 'x'.repeat(500), HOUR);
    await expect(records.put('d', 'y'.repeat(600), HOUR)).rejects.toThrow(/is full/);
    expect(await FileRecords.inDirectory(dir, KEY).get('c')).toHaveLength(500);
  });

  it('gives a claim back when the file cannot be written, with a retryable tool error', async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY);
    // A directory where the file goes: the rename that completes each write fails.
    mkdirSync(join(dir, FILE));
    const failed = await records.add('claim', 'mine', HOUR).catch((e: unknown) => e);
    expect(ToolError.isInstance(failed) && failed.info.code).toBe('store_unavailable');
    expect((failed as Error).message).toContain('Cannot write the write-records file');
    expect(await records.get('claim')).toBeUndefined();
    // Its failed write is reported again; the file is given up all the same.
    await records.flush().catch(() => {});
    expect(readdirSync(dir)).toEqual([FILE]);
  });

  it('refuses a second writer on the same file, naming it, until the first gives it up', async () => {
    const dir = dataDir();
    const first = FileRecords.inDirectory(dir, KEY);
    const second = FileRecords.inDirectory(dir, KEY);
    await first.put('k', 'v', HOUR);
    const refused = await second.put('k2', 'v2', HOUR).catch((e: unknown) => e);
    expect(ToolError.isInstance(refused) && refused.info.code).toBe('store_unavailable');
    expect((refused as Error).message).toContain(`is in use by another toolhost (process ${process.pid})`);
    expect(await FileRecords.inDirectory(dir, KEY).get('k')).toBe('v');
    await first.flush();
    await second.put('k2', 'v2', HOUR);
    expect(await FileRecords.inDirectory(dir, KEY).get('k2')).toBe('v2');
  });
});

describe('FileRecords journal', () => {
  it('writes one change as one short append however full the file is', async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY, { maxRecords: 3000 });
    const value = 'o'.repeat(2000);
    await Promise.all(Array.from({ length: 2999 }, (_, i) => records.put(`k${i}`, value, HOUR)));
    const file = join(dir, FILE);
    const before = readFileSync(file);
    const inode = statSync(file).ino;
    expect(before.length).toBeGreaterThan(2999 * 2000);
    // The last place, then one more change of a record (an outcome replacing a claim).
    await records.put('last', value, HOUR);
    await records.put('k0', value, HOUR);
    // The same file, its bytes untouched, two lines longer.
    const after = readFileSync(file);
    expect(statSync(file).ino).toBe(inode);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.length - before.length).toBeGreaterThan(0);
    expect(after.length - before.length).toBeLessThan(2 * 3000);
    expect(await FileRecords.inDirectory(dir, KEY).get('last')).toBe(value);
  });

  it('compacts once most lines are dead, keeping every record and the changes made meanwhile', async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY, { compactAfter: 50 });
    for (let i = 0; i < 10; i += 1) await records.put(`kept-${i}`, `v${i}`, HOUR);
    for (let round = 0; round < 30; round += 1)
      await Promise.all(Array.from({ length: 5 }, (_, i) => records.put(`hot-${i}`, `r${round}`, HOUR)));
    // A burst while a compaction may run: each change is still on disk when it settles.
    await Promise.all(Array.from({ length: 40 }, (_, i) => records.put(`late-${i}`, `l${i}`, HOUR)));
    await records.flush();
    expect(records.journalLines).toBeLessThan(120);
    const lines = readFileSync(join(dir, FILE), 'utf8').trimEnd().split('\n').length - 1;
    expect(lines).toBeLessThan(120);
    const reopened = FileRecords.inDirectory(dir, KEY);
    for (let i = 0; i < 10; i += 1) expect(await reopened.get(`kept-${i}`)).toBe(`v${i}`);
    for (let i = 0; i < 5; i += 1) expect(await reopened.get(`hot-${i}`)).toBe('r29');
    for (let i = 0; i < 40; i += 1) expect(await reopened.get(`late-${i}`)).toBe(`l${i}`);
    expect(readdirSync(dir)).toEqual([FILE]);
  });

  it('ignores a last line cut short by a crash, and appends after the lines before it', async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY);
    await records.put('a', '1', HOUR);
    await records.put('b', '2', HOUR);
    await records.flush();
    const file = join(dir, FILE);
    // The last append torn half-way: its line has no end.
    truncateSync(file, statSync(file).size - 30);
    const reopened = FileRecords.inDirectory(dir, KEY);
    expect(await reopened.get('a')).toBe('1');
    expect(await reopened.get('b')).toBeUndefined();
    // And a compaction it was running: its temp file goes when the next writer takes the file.
    writeFileSync(join(dir, `${FILE}.99999.0badc0de.tmp`), 'half a compaction');
    await reopened.put('c', '3', HOUR);
    await reopened.flush();
    expect(readdirSync(dir)).toEqual([FILE]);
    const again = FileRecords.inDirectory(dir, KEY);
    expect([await again.get('a'), await again.get('b'), await again.get('c')]).toEqual(['1', undefined, '3']);
    // A line damaged before the last is not a crash: refused, as an altered file.
    appendFileSync(file, 'not-a-sealed-line\n{"iv":"x"}');
    expect(() => FileRecords.inDirectory(dir, KEY)).toThrow(/wrong key, or the file was altered/);
  });
});

describe('FileRecords per-user places', () => {
  it("keeps each user's places across a restart, so the bound still holds; another user's are apart", async () => {
    const dir = dataDir();
    const records = FileRecords.inDirectory(dir, KEY);
    const taken = await Promise.all(
      ['p1', 'p2', 'p3', 'p4'].map((id) => records.take('previews', 'alice', id, 3, HOUR)),
    );
    expect(taken.filter(Boolean)).toHaveLength(3);
    await records.giveBack('previews', 'alice', 'p1');
    expect(await records.take('previews', 'alice', 'p5', 3, HOUR)).toBe(true);
    await records.flush();

    const restarted = FileRecords.inDirectory(dir, KEY);
    expect(await restarted.take('previews', 'alice', 'p6', 3, HOUR)).toBe(false);
    expect(await restarted.take('idempotency', 'alice', 'k1', 3, HOUR)).toBe(true);
    expect(await restarted.take('previews', 'bob', 'p1', 3, HOUR)).toBe(true);
    await restarted.flush();
  });

  it('frees a place when it expires', async () => {
    const records = FileRecords.inDirectory(dataDir(), KEY);
    expect(await records.take('previews', 'alice', 'p1', 1, 50)).toBe(true);
    expect(await records.take('previews', 'alice', 'p2', 1, 50)).toBe(false);
    await new Promise((r) => setTimeout(r, 80));
    expect(await records.take('previews', 'alice', 'p3', 1, 50)).toBe(true);
    await records.flush();
  });
});
