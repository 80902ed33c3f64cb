import { describe, expect, it } from 'vitest';
import {
  eraPinnedBy,
  FIRST_MODERN_REVISION,
  isLegacyRequest,
  modernRevisionOf,
  opensLegacyConnection,
  VerdictCache,
} from './protocol-eras.js';

/** A modern tools/list as a v2 client sends it, from a client of this name. */
function modernList(id: number, clientName = 'probe') {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': FIRST_MODERN_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};

describe('the protocol era of a message', () => {
  it('is legacy for initialize and modern for an enveloped request, on HTTP and stdio alike', () => {
    expect(isLegacyRequest({ httpMethod: 'POST', body: initialize })).toBe(true);
    const modern = {
      httpMethod: 'POST',
      body: modernList(2),
      protocolVersionHeader: FIRST_MODERN_REVISION,
      mcpMethodHeader: 'tools/list',
    };
    expect(isLegacyRequest(modern)).toBe(false);
    expect(opensLegacyConnection(initialize)).toBe(true);
    expect(opensLegacyConnection(modernList(2))).toBe(false);
    expect(eraPinnedBy(initialize)).toEqual({ era: 'legacy' });
    expect(eraPinnedBy(modernList(2))).toEqual({ era: 'modern', revision: FIRST_MODERN_REVISION });
    expect(eraPinnedBy({ ...modernList(3), method: 'server/discover' })).toBeUndefined();
  });

  it('is looked up by envelope once classified, and the same verdict either way', () => {
    const cache = new VerdictCache();
    for (const id of [1, 2, 3])
      expect(modernRevisionOf(modernList(id), FIRST_MODERN_REVISION, 'tools/list', cache)).toBe(
        FIRST_MODERN_REVISION,
      );
    expect(cache.size).toBe(1);
    // A header that disagrees with the body is no modern request, cached or not.
    for (let i = 0; i < 2; i++)
      expect(modernRevisionOf(modernList(4), FIRST_MODERN_REVISION, 'tools/call', cache)).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('is not the cached one for a request with a member no request has, which the SDK refuses', () => {
    const cache = new VerdictCache();
    expect(modernRevisionOf(modernList(1), FIRST_MODERN_REVISION, 'tools/list', cache)).toBe(
      FIRST_MODERN_REVISION,
    );
    for (const odd of [JSON.parse('{"__proto__":{"a":1}}'), { extra: 1 }])
      expect(
        modernRevisionOf({ ...modernList(2), ...odd }, FIRST_MODERN_REVISION, 'tools/list', cache),
      ).toBeUndefined();
  });
});

// Issue #40, item 6: the cache kept every distinct envelope whole, client names included, so
// 200 requests with 3.5 MB names held 256 keys of megabytes each.
describe('the verdict cache, against clients that choose what it keys on', () => {
  it('keeps no key longer than its bound, and still classifies such requests', () => {
    const cache = new VerdictCache();
    const huge = 'n'.repeat(512 * 1024);
    for (let i = 0; i < 40; i++) {
      const revision = modernRevisionOf(
        modernList(i, `${huge}${i}`),
        FIRST_MODERN_REVISION,
        'tools/list',
        cache,
      );
      expect(revision).toBe(FIRST_MODERN_REVISION);
    }
    expect(cache.size).toBe(0);
    expect(cache.keyLength).toBe(0);
  });

  it('holds at most its entries, each within the key bound, however many clients there are', () => {
    const cache = new VerdictCache(16, 2048);
    for (let i = 0; i < 200; i++)
      modernRevisionOf(
        modernList(i, `client-${i}-${'x'.repeat(1500)}`),
        FIRST_MODERN_REVISION,
        'tools/list',
        cache,
      );
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThanOrEqual(16);
    expect(cache.keyLength).toBeLessThanOrEqual(16 * 2048);
  });
});
