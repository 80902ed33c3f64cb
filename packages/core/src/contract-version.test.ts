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
    expect(!r.ok && r.reason).toMatch(/upgrade @toolhost\/core/);
  });

  it('refuses malformed versions', () => {
    expect(checkContractVersion('one', '1.0').ok).toBe(false);
  });
});
