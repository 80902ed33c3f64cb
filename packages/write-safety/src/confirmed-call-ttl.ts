/**
 * How long a confirmed call's outcome answers a retry of its confirmation: as long as the
 * confirmation itself is valid (MCP 2026-07-28 `requestState`, the host's mcp/confirmation-state.ts), so
 * that no retry it still admits finds its record gone and sends again.
 *
 * A module of its own (the package's `./confirmed-call-ttl` export): the host signs
 * confirmations with it from the start, and loads the rest of write safety at the first write.
 */
export const CONFIRMED_CALL_TTL_MS = 10 * 60_000;
