/**
 * Said once to the client. The listing itself describes `mode` and `request_body` (many
 * clients drop these instructions), so this only gives the picture and the error shape.
 */
export const SERVER_INSTRUCTIONS = [
  'Each tool mirrors one HTTP endpoint of a SaaS API and returns its response body.',
  'Tools with a `mode` parameter send a JSON body: call mode "get_request_schema" for its schema, then mode "execute" with `request_body` as a JSON string.',
  'A result over the size budget comes back as a summary with a resource link to the whole result.',
  'Errors come back with isError and a structured `error` {code, message, retryable, status?, upstream?}.',
].join(' ');
