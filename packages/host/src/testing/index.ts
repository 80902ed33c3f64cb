export {
  type FakeResponse,
  type RecordedRequest,
  type RecordingUpstream,
  type Responder,
  startRecordingUpstream,
} from './recording-upstream.js';
export { hostCliPath, type SpawnedHost, spawnHost } from './spawn-host.js';
