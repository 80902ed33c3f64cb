/** Shapes several sections of the config schema share. */
export const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
export const globs = { type: 'array', items: { type: 'string' } } as const;
export const names = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true } as const;
