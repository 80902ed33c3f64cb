import type { ToolDeclaration } from '@toolhost/core';

export const emailTools: ToolDeclaration[] = [];
