import { describe, expect, it } from 'vitest';
import { checkContractVersion } from './contract-version.js';

describe('checkContractVersion', () => {
  it('accepts the same major with an older or equal minor', () => {
    expect(checkContractVersion('1.0', '1.0')).toEqual({ ok: true });
    expect(checkContractVersion('1.0', '1.3')).toEqual({ ok: true });
  });

  it('refuses another major, naming both versions', () => {
    const r = checkContractVersion('2.0', '1.0');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/2\.0.*1\.0/);
  });

  it('refuses a plugin that needs a newer minor', () => {
    const r = checkContractVersion('1.4', '1.2');
    expect(!r.ok && r.reason).toMatch(/1\.4, newer than this host's 1\.2; upgrade the host/);
  });

  it('refuses malformed versions', () => {
    expect(checkContractVersion('one', '1.0').ok).toBe(false);
  });
});

describe('an older major', () => {
  it('is refused with a hint to upgrade the plugin', () => {
    const r = checkContractVersion('1.1', '2.0');
    expect(!r.ok && r.reason).toMatch(
      /1\.1, which this host \(contract 2\.0\) no longer executes; upgrade the plugin/,
    );
  });
});
