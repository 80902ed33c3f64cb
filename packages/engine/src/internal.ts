/**
 * `@toolhost/engine/internal`: what the host and the conformance suite take from the engine
 * beyond its API: the in-process pacer the shared (Redis) pacer falls back to, the abortable
 * sleep both wait with, and the sample value of a schema (example calls, generated arguments).
 * No compatibility promise: these change with the engine, without a contract version. Nothing
 * else is exported here: what no other package uses stays private.
 */
export { Pacer, sleep } from './pacer.js';
export { sampleValue } from './sample-value.js';
