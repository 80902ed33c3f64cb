// The disk's side of replacing the state file: where a process writes the state before renaming
// it in place.

/** Where process `pid` writes the state of `path` before renaming it over `path`. */
export const temporaryOf = (path: string, pid = process.pid) => `${path}.${pid}.tmp`;
