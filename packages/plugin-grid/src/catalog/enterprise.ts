import type { ToolDeclaration } from '@toolhost/core';

export const enterpriseTools: ToolDeclaration[] = [];
