import type { ToolDeclaration } from '@toolhost/core';
import { contactParticipationTools, externalEventTools } from './events-external.js';
import { internalEventTools } from './events-internal.js';

/** Marketing events by internal id, by external identity, and participation by contact. */
export const eventTools: ToolDeclaration[] = [
  ...internalEventTools,
  ...externalEventTools,
  ...contactParticipationTools,
];
