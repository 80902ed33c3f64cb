/**
 * The write safety of a toolhost: previews sent later exactly as shown, a person's
 * confirmation before a write is sent, idempotency keys, each user's bounds, and where their
 * records live (memory, the host's sealed file, the store replicas share). The host lends it
 * how it runs a call (`CallRunner`) and its settings; it never imports the host.
 */
export { confirmAtTerminal } from './ask-at-terminal.js';
export { NobodyToAsk } from './ask-person.js';
export { CONFIRMED_CALL_TTL_MS } from './confirmed-call-ttl.js';
export {
  type ExpiringRecords,
  MemoryRecords,
  type RecordLimits,
  type RecordOwner,
} from './expiring-records.js';
export { FileRecords, type FileRecordsLimits } from './file-records.js';
export { callFingerprint } from './idempotency-keys.js';
export { type PerUserPlaces, ProcessPlaces } from './per-user-budget.js';
export type { CallRunner, RunningCall, WriteSafetySettings } from './ports.js';
export type { Sealer } from './record-codec.js';
export {
  type ConfirmWrite,
  createWriteSafety,
  type OwnFile,
  type PreviewOutcome,
  type SharedWrites,
  type WriteCallOptions,
  WriteSafety,
  type WriteSafetyInput,
} from './write-safety.js';
