import type { ToolDeclaration } from '@toolhost/core';

export const campaignTools: ToolDeclaration[] = [];
