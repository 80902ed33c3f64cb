import type { ToolArgs } from './catalog-suite.js';

/**
 * The arguments of a mode tool's `execute` call: the body goes as JSON text in `request_body`
 * (the host parses it and checks it against the tool's request schema), beside any other
 * parameters the tool takes, e.g. `executeArgs(event, { marketing_event_id: '4001' })`.
 */
export function executeArgs(body: unknown, args: ToolArgs = {}): ToolArgs {
  return { mode: 'execute', request_body: JSON.stringify(body), ...args };
}
