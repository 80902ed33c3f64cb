/** Said once to the client instead of in every mode tool's description. */
export const SERVER_INSTRUCTIONS = [
  "Each tool mirrors one HTTP endpoint of a SaaS API; its result is that endpoint's response ({status, body}).",
  'Tools with a `mode` parameter take a JSON request body: call with mode "get_request_schema" to get the body\'s schema (nothing is sent),',
  'then with mode "execute" and `request_body` set to the JSON as a string.',
  'Parameters described as "Required for execute" are needed only in execute mode.',
  'Errors come back with isError and a structured `error` {code, message, retryable, status?, upstream?}.',
].join(' ');
