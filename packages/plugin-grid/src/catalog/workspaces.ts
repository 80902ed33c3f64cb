import type { ToolDeclaration } from '@toolhost/core';

export const workspaceTools: ToolDeclaration[] = [];
