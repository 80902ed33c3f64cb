import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@toolhost/core';
import { describe, expect, it, vi } from 'vitest';
import { TokenStoreError } from '../auth/sealed-file.js';
import { TokenCipher } from '../auth/token-cipher.js';
import { FileRecords } from './file-records.js';

const KEY = 'a-long-enough-test-key';
const HOUR = 3_600_000;

const dataDir = () => mkdtempSync(join(tmpdir(), 'write-records-'));

/** The file's records, opened with the key as the store does (what is really on disk). */
function opened(dir: string): Record<string, [string, number]> {
  const envelope = JSON.parse(readFileSync(join(dir, 'write-records.enc.json'), 'utf8'));
  return new TokenCipher(KEY, Buffer.from(envelope.salt, 'base64')).open(envelope) as Record<
    string,
    [string, number]
  >;
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

    const file = join(dir, 'write-records.enc.json');
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
    expect(readdirSync(dir)).toEqual(['write-records.enc.json']);
  });

  it('drops expired records on load and leaves them out of the next write', async () => {
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
      expect(Object.keys(opened(dir))).toEqual(['long', 'later']);
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
    const file = join(dir, 'write-records.enc.json');
    const envelope = JSON.parse(readFileSync(file, 'utf8'));
    envelope.data = Buffer.from('tampered').toString('base64');
    writeFileSync(file, JSON.stringify(envelope));
    expect(() => FileRecords.inDirectory(dir, KEY)).toThrow(TokenStoreError);
  });

  it('refuses a file that is not a write-records store, naming it and leaving it as it is', () => {
    for (const text of ['null', '[]', '{}', 'half-writ', '{"format":"toolhost-write-records-v1","salt":1}']) {
      const dir = dataDir();
      const file = join(dir, 'write-records.enc.json');
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
    const { EncryptedFileTokenStore } = await import('../auth/encrypted-file-token-store.js');
    expect(() => new EncryptedFileTokenStore(join(dir, 'write-records.enc.json'), KEY)).toThrow(
      /unknown format/,
    );
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
    mkdirSync(join(dir, 'write-records.enc.json'));
    const failed = await records.add('claim', 'mine', HOUR).catch((e: unknown) => e);
    expect(ToolError.isInstance(failed) && failed.info.code).toBe('store_unavailable');
    expect((failed as Error).message).toContain('Cannot write the write-records file');
    expect(await records.get('claim')).toBeUndefined();
    // Its failed write is reported again; the file is given up all the same.
    await records.flush().catch(() => {});
    expect(readdirSync(dir)).toEqual(['write-records.enc.json']);
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
