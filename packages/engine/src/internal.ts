/**
 * `@toolhost/engine/internal`: what the host and the conformance suite take from the engine
 * beyond its API: the in-process pacer the shared (Redis) pacer falls back to, the abortable
 * sleep both wait with, the sample value of a schema (example calls, generated arguments), and
 * the walk that tells a value nested too deep (the host's check of a request's params), and
 * the test for a credential left as a placeholder (the host's readiness of secrets), and how an
 * error shows a parameter name a caller wrote (the host's own tools name unknown ones alike),
 * and how a message quotes any text someone gave, its unseen characters escaped (the host's
 * config and command-line errors quote alike; its reports and usage escape whole lines), and
 * why JSON text did not parse, by line and column (the host's config files and --args), and
 * the JSON helpers the host would otherwise write again (a pointer's keys and the value at
 * them, naming a config key and its value; the test for a JSON object), and the copy of a
 * call's arguments as JSON data (write safety keys a call by that copy), and the credentials
 * tool sets declare (what the host builds and checks its config against), and the known name a
 * person likely meant (the host's config, flags and tool names).
 * No compatibility promise: these change with the engine, without a contract version. Nothing
 * else is exported here: what no other package uses stays private.
 */
export { declaredCredentials } from './declared-credentials.js';
export { closest, didYouMean } from './did-you-mean.js';
export { parseProblem } from './json-fault.js';
export { pointerKeys, valueAt } from './json-pointer.js';
export { nestsDeeperThan } from './nesting.js';
export { Pacer, sleep } from './pacer.js';
export { plainArguments } from './plain-arguments.js';
export { escapeLines, escapeUnseen, quoted } from './quoted.js';
export { sampleValue } from './sample-value.js';
export { isObject } from './schema-places.js';
export { credentialProblem } from './static-auth.js';
export { shortened } from './validate-arguments.js';
