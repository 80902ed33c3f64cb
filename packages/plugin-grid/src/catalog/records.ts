import type { ToolDeclaration } from '@toolhost/core';

export const recordTools: ToolDeclaration[] = [];
