import type { ToolDeclaration } from '@toolhost/core';

export const transactionalTools: ToolDeclaration[] = [];
