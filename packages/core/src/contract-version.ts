/**
 * The version of the plugin contract this copy of core implements.
 *
 * Plugins are released independently of core and host, so each plugin states the contract
 * version it was built against. Same major: compatible. A plugin may not need a newer minor
 * than the core it runs on (the minor adds declaration capabilities the engine must know).
 */
export const CONTRACT_VERSION = '1.0';

export type ContractCheck = { ok: true } | { ok: false; reason: string };

export function checkContractVersion(
  pluginContract: string,
  coreContract: string = CONTRACT_VERSION,
): ContractCheck {
  const parse = (v: string) => {
    const m = /^(\d+)\.(\d+)$/.exec(v);
    return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
  };
  const p = parse(pluginContract);
  const c = parse(coreContract);
  if (!p || !c) {
    return { ok: false, reason: `contract version "${pluginContract}" is not of the form MAJOR.MINOR` };
  }
  if (p.major !== c.major) {
    return {
      ok: false,
      reason: `plugin implements contract ${pluginContract} but core implements ${coreContract} (major versions differ)`,
    };
  }
  if (p.minor > c.minor) {
    return {
      ok: false,
      reason: `plugin needs contract ${pluginContract} but core only implements ${coreContract}; upgrade @toolhost/core`,
    };
  }
  return { ok: true };
}
