import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenStoreError } from './credentials-error.js';
import { EncryptedFileTokenStore } from './encrypted-file-token-store.js';

const KEY = 'a-long-enough-test-key';
const token = { accessToken: 'at-secret', refreshToken: 'rt-secret', expiresAt: 1, scopes: ['a'] };

describe('EncryptedFileTokenStore', () => {
  it('persists encrypted, owner-only, and reads back with the same key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    const store = EncryptedFileTokenStore.inDirectory(dir, KEY);
    await store.set('p', 'u1', token);
    await store.set('p', 'u2', { ...token, accessToken: 'other' });
    await store.delete('p', 'u2');
    const file = join(dir, 'tokens.enc.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain('secret');
    const reopened = EncryptedFileTokenStore.inDirectory(dir, KEY);
    expect(await reopened.get('p', 'u1')).toEqual(token);
    expect(await reopened.get('p', 'u2')).toBeUndefined();
    expect(readdirSync(dir)).toEqual(['tokens.enc.json']);
  });

  it('refuses a wrong key or an altered file instead of starting empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    await EncryptedFileTokenStore.inDirectory(dir, KEY).set('p', 'u', token);
    expect(() => EncryptedFileTokenStore.inDirectory(dir, 'another-long-key-xx')).toThrow(
      /wrong key, or the file was altered/,
    );
    const file = join(dir, 'tokens.enc.json');
    const envelope = JSON.parse(readFileSync(file, 'utf8'));
    envelope.data = Buffer.from('tampered').toString('base64');
    writeFileSync(file, JSON.stringify(envelope));
    expect(() => EncryptedFileTokenStore.inDirectory(dir, KEY)).toThrow(/Cannot decrypt/);
  });

  it('refuses a file that is not a token store, naming it, instead of starting empty', () => {
    for (const text of ['null', '[]', '{}', '"text"', '{"format":"toolhost-tokens-v1","salt":1}']) {
      const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
      const file = join(dir, 'tokens.enc.json');
      writeFileSync(file, text);
      let error: unknown;
      try {
        EncryptedFileTokenStore.inDirectory(dir, KEY);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(TokenStoreError);
      expect((error as Error).message, text).toContain(file);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('keeps the last complete file when a write was interrupted (a stray temp file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    await EncryptedFileTokenStore.inDirectory(dir, KEY).set('p', 'u', token);
    writeFileSync(join(dir, 'tokens.enc.json.123.dead.tmp'), '{"format":"toolhost-tokens-v1","da');
    expect(await EncryptedFileTokenStore.inDirectory(dir, KEY).get('p', 'u')).toEqual(token);
  });

  it('serializes concurrent writes so none is lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    const store = EncryptedFileTokenStore.inDirectory(dir, KEY);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set('p', `u${i}`, token)));
    const reopened = EncryptedFileTokenStore.inDirectory(dir, KEY);
    for (let i = 0; i < 20; i += 1) expect(await reopened.get('p', `u${i}`)).toEqual(token);
  });
});

describe('EncryptedFileTokenStore user names', () => {
  it('keeps users named like Object.prototype members as ordinary users, across a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    const store = EncryptedFileTokenStore.inDirectory(dir, KEY);
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    // Nobody stored yet: no inherited member is taken for a token.
    for (const name of names) expect(await store.get('p', name)).toBeUndefined();
    for (const [i, name] of names.entries()) await store.set('p', name, { ...token, accessToken: `at-${i}` });
    const reopened = EncryptedFileTokenStore.inDirectory(dir, KEY);
    for (const [i, name] of names.entries())
      expect(await reopened.get('p', name)).toEqual({ ...token, accessToken: `at-${i}` });
    expect((await reopened.list({ providerId: 'p' })).map((c) => c.userId).sort()).toEqual([...names].sort());
    await reopened.delete('p', '__proto__');
    await reopened.delete('p', 'constructor');
    expect(await reopened.get('p', '__proto__')).toBeUndefined();
    expect(await reopened.get('p', 'constructor')).toBeUndefined();
    expect(await reopened.get('p', 'toString')).toEqual({ ...token, accessToken: 'at-2' });
  });
});
