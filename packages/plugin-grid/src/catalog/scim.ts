import type { ToolDeclaration } from '@toolhost/core';

export const scimTools: ToolDeclaration[] = [];
