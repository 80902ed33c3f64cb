import * as host from '@toolhost/host';
import { describe, expect, it } from 'vitest';

describe('@toolhost/host entries', () => {
  it('exports exactly the public API', () => {
    expect(Object.keys(host).sort()).toEqual([
      'AccessTokens',
      'CALLBACK_PATH_PREFIX',
      'ConfigError',
      'ConnectionsError',
      'EncryptedFileTokenStore',
      'HostError',
      'HostServices',
      'MemoryTokenStore',
      'OAuthAuthProvider',
      'OAuthCallbackError',
      'PLUGIN_KEYWORD',
      'PluginLoadError',
      'SERVER_INSTRUCTIONS',
      'STATUS_META_KEY',
      'TokenStoreError',
      'ToolIndex',
      'ToolNameMap',
      'assertCompatible',
      'createHost',
      'createLogger',
      'createMcpServer',
      'defaultTokenStore',
      'defineConfig',
      'disconnect',
      'discoverPlugins',
      'findConfig',
      'importPlugins',
      'listConnections',
      'loadConfigFile',
      'pluginSearchBases',
      'prepareMcpCatalog',
      'registerService',
      'renderOutcome',
      'resolveService',
      'serveHttp',
      'serveStdio',
      'tokenEnvName',
      'validateConfig',
    ]);
  });
});
