// What a failed call carries in `structuredContent.error`: core's shape of a tool error, as is.
export type { ToolErrorInfo } from '@toolhost/core';
export {
  type BadInput,
  type CatalogSuite,
  type CatalogSuiteOptions,
  catalogSuite,
  effectiveHints,
  HOST_WRITE_TOOLS,
  type HostVariant,
  type ListedTools,
  type ListingExpectation,
  pluginToolsOf,
  type RequestCase,
  responseOf,
  resultText,
  type ToolArgs,
  type ToolHints,
  type ToolResponse,
  type ToolSetConfigOption,
} from './catalog-suite.js';
export { executeArgs } from './execute-args.js';
export {
  type FakeResponse,
  heldAnswers,
  type RecordedRequest,
  type RecordingUpstream,
  type Responder,
  startRecordingUpstream,
} from './recording-upstream.js';
export { hostCliPath, type SpawnedHost, spawnHost } from './spawn-host.js';
