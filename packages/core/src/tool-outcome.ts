import type { ToolErrorInfo } from './tool-error.js';

/** What a tool call produced: the upstream response, a request-body schema, or an error. */
export type ToolOutcome =
  | {
      ok: true;
      kind: 'response';
      status: number;
      /**
       * The upstream's answer: its JSON parsed (`null` when empty), else its text. A number in
       * it that a double cannot hold as written (an id past 2^53 such as `12345678901234567891`,
       * `0.1000000000000000055511151231257827`, `1e400`) is the string of its literal, digit
       * for digit, on every Node version; every other number is a number.
       */
      body: unknown;
    }
  | { ok: true; kind: 'schema'; schema: unknown }
  | { ok: false; error: ToolErrorInfo };
