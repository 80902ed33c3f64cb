/**
 * The version of the plugin contract (the declaration vocabulary and the plugin interface)
 * this copy of core implements, as MAJOR.MINOR.
 *
 * Each plugin states, as a literal in its own code, the version it was written against, so
 * the number travels in the plugin's build output rather than being read from whichever core
 * happens to be loaded. The host executes a plugin when the majors agree and the plugin's
 * minor is not newer than its own: minors only add optional vocabulary, so an older minor's
 * declarations run unchanged. A vocabulary change without a new version fails a test
 * (`vocabulary.test.ts`).
 *
 * History:
 * - 1.0: the first vocabulary (`mode: 'x' | 'xo'`, `as` for API names, body paths and prefixes).
 * - 1.1: pacing and rate-limit retries, OAuth endpoints, `fromSetting`, whole-body parameters,
 *   `decode`, `requiresAnyOf`, `sendEmptyArray` (added while the number stayed 1.0).
 * - 2.0: one meaning per field (`executeOnly`, `apiName`, `bodyPath`, `wholeBody`,
 *   `keyPrefix`, `apiValues`, `dependentRequired`), the tool set stamped by the plugin
 *   instead of each declaration, `traffic` for pacing, typed plugin settings.
 * - 2.1: `revokeUrl` in a plugin's OAuth endpoints (optional; 2.0 plugins run unchanged).
 * - 2.2: pacing per connection (`traffic.pacing.per: 'connection'`) beside pacing per
 *   parameter value; 2.0 and 2.1 plugins run unchanged.
 * - 2.3: `vendor`, the name people call the API's vendor by (`Airtable`), so the host can
 *   answer in those words; optional, earlier 2.x plugins run unchanged.
 * - 2.4: `skill`, the folder of the tool set's skill shipped in the plugin package (its
 *   workflows, ids, paging and pitfalls for agents); optional, earlier 2.x plugins run unchanged.
 * - 2.5: `account` in a plugin's OAuth endpoints, how to read which vendor account a token acts
 *   for (shown on the connections page); optional, earlier 2.x plugins run unchanged.
 * - 2.6: `pastRequests`, requests people made that the set's tools answer, each with those
 *   tools (the host's tool search leans on them); optional, earlier 2.x plugins run unchanged.
 */
export const CONTRACT_VERSION = '2.6';

export type ContractCheck = { ok: true } | { ok: false; reason: string };

function parse(version: string): { major: number; minor: number } | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(version);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/** Whether a core implementing `hostContract` can execute a plugin written against `pluginContract`. */
export function checkContractVersion(
  pluginContract: unknown,
  hostContract: string = CONTRACT_VERSION,
): ContractCheck {
  const p = typeof pluginContract === 'string' ? parse(pluginContract) : undefined;
  const h = parse(hostContract);
  if (!p || !h) {
    return {
      ok: false,
      reason: `contract version ${JSON.stringify(pluginContract)} is not of the form MAJOR.MINOR`,
    };
  }
  if (p.major !== h.major) {
    return {
      ok: false,
      reason:
        p.major > h.major
          ? `it was written for contract ${pluginContract}, newer than this host's ${hostContract}; upgrade the host`
          : `it was written for contract ${pluginContract}, which this host (contract ${hostContract}) no longer executes; upgrade the plugin`,
    };
  }
  if (p.minor > h.minor) {
    return {
      ok: false,
      reason: `it was written for contract ${pluginContract}, newer than this host's ${hostContract}; upgrade the host`,
    };
  }
  return { ok: true };
}
