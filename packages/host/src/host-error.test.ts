import { OAuthCallbackError } from '@toolhost/credentials';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config/load-config.js';
import { HostError } from './host-error.js';
import { PluginLoadError } from './plugins/load-plugins.js';

describe('host errors', () => {
  it('carry stable codes and are recognised by marker, also from another copy of the package', () => {
    const config = new ConfigError('x');
    expect(config.code).toBe('config_invalid');
    expect(new PluginLoadError('y').code).toBe('plugin_load_failed');
    expect(ConfigError.isInstance(config)).toBe(true);
    expect(PluginLoadError.isInstance(config)).toBe(false);
    expect(HostError.isInstance(new OAuthCallbackError('z'))).toBe(true);
    // What a second copy of the host would throw: same marker and code, another class.
    const foreign = Object.assign(new Error('elsewhere'), {
      [Symbol.for('toolhost.host.error')]: true,
      code: 'config_invalid',
    });
    expect(ConfigError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof ConfigError).toBe(false);
  });
});
