import type { ToolDeclaration } from '@toolhost/core';

export const eventTools: ToolDeclaration[] = [];
