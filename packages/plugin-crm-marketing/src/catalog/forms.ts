import type { ToolDeclaration } from '@toolhost/core';

export const formTools: ToolDeclaration[] = [];
