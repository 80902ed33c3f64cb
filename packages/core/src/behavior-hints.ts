import type { BehaviorHints, ToolDeclaration } from './tool-declaration.js';

/** Hints derived from HTTP semantics (RFC 9110 safe and idempotent methods), overridable per tool. */
export function behaviorHints(decl: Pick<ToolDeclaration, 'method' | 'hints'>): BehaviorHints {
  const base: BehaviorHints = (() => {
    switch (decl.method) {
      case 'GET':
        return { readOnly: true, destructive: false, idempotent: true, openWorld: true };
      case 'PUT':
        return { readOnly: false, destructive: true, idempotent: true, openWorld: true };
      case 'DELETE':
        return { readOnly: false, destructive: true, idempotent: true, openWorld: true };
      case 'PATCH':
        return { readOnly: false, destructive: true, idempotent: false, openWorld: true };
      case 'POST':
        return { readOnly: false, destructive: false, idempotent: false, openWorld: true };
    }
  })();
  const merged = { ...base, ...decl.hints };
  // A tool that only reads can neither destroy nor differ when repeated.
  if (merged.readOnly) return { ...merged, destructive: false, idempotent: true };
  return merged;
}
