import { authSection } from './schema/auth.js';
import { engineSection } from './schema/engine.js';
import { httpSection } from './schema/http.js';
import { mcpSection } from './schema/mcp.js';
import { auditSection, loggingSection, telemetrySection } from './schema/observability.js';
import { names, stringMap } from './schema/shapes.js';
import { storeSection } from './schema/store.js';
import { toolSetConfig, toolsSection } from './schema/tools.js';

/*
 * The one source of the host's configuration: this schema validates config files and
 * embedders' objects (naming the offending key), its `default`s fill what a config leaves out
 * (config-defaults.ts), and scripts/generate-config-reference.mjs turns it into the TypeScript
 * types (host-config.generated.ts) and the configuration reference (docs/configuration.md), which CI checks
 * are current. `x-env` and `x-flag` name the environment variable and CLI flag that set a key
 * over the file; they are documentation (the validator ignores unknown keywords).
 */

export const hostConfigSchema = {
  title: 'HostConfig',
  description: "The host's configuration, as a file (JSON or YAML) or an object passed by an embedder.",
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'Editor hint; ignored.' },
    plugins: {
      ...names,
      description:
        "Plugin packages (names or paths) to load. By default every installed toolhost plugin. A relative path starts from the config file's directory; given by TOOLHOST_PLUGINS or --plugins, from the working directory.",
      'x-env': 'TOOLHOST_PLUGINS',
      'x-flag': '--plugins',
    },
    toolSets: {
      type: 'object',
      additionalProperties: toolSetConfig,
      description: 'Per-tool-set settings, keyed by tool set name.',
    },
    tools: toolsSection,
    auth: authSection,
    secrets: {
      ...stringMap,
      description: 'Named secrets such as `CDP_API_KEY`; an environment variable of the same name wins.',
    },
    secretsFile: {
      type: 'string',
      description: 'A JSON file of named secrets (`{"CDP_API_KEY": "..."}`), relative to the config file.',
    },
    engine: engineSection,
    mcp: mcpSection,
    http: httpSection,
    store: storeSection,
    defaultUserId: {
      type: 'string',
      minLength: 1,
      description: 'User id for calls that name none (single-user setups, stdio).',
      default: 'default',
    },
    shutdownGraceSeconds: {
      type: 'number',
      minimum: 0,
      maximum: 3600,
      description: 'Seconds in-flight calls get to finish on shutdown before they are cancelled.',
      default: 10,
    },
    audit: auditSection,
    telemetry: telemetrySection,
    logging: loggingSection,
  },
} as const;
