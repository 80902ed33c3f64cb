import type { ToolDeclaration } from '@toolhost/core';

export const schemaTools: ToolDeclaration[] = [];
