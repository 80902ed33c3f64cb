/**
 * `@toolhost/engine/internal`: the engine's building blocks, for the host's own packages and
 * tools around them (request previews, conformance suites). No compatibility promise: these
 * change with the engine, without a contract version.
 */
export { buildRequest, type RequestTarget } from './build-request.js';
export { errorForResponse, retryAfterSeconds } from './classify-response.js';
export { Pacer, sleep } from './pacer.js';
export { sampleValue } from './sample-value.js';
export { encodeQuery, type QueryPair, queryPairs } from './serialize-query.js';
export { type Arguments, parseRequestBody, validateArguments } from './validate-arguments.js';
