import type { ToolDeclaration } from '@toolhost/core';

export const baseTools: ToolDeclaration[] = [];
