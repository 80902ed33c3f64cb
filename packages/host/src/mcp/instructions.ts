/** Said once to the client instead of in every mode tool: what `mode` and `request_body` mean. */
export const SERVER_INSTRUCTIONS = [
  'Each tool mirrors one HTTP endpoint of a SaaS API and returns its response ({status, body}).',
  'Tools with a `mode` parameter send a JSON body: mode "get_request_schema" returns the body\'s schema and sends nothing;',
  'mode "execute" sends `request_body`, the body as a JSON string, which is then required.',
  'Parameters marked "Required for execute" are needed only in execute mode.',
  'Errors come back with isError and a structured `error` {code, message, retryable, status?, upstream?}.',
].join(' ');
