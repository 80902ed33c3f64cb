import type { ToolDeclaration } from '@toolhost/core';

export const webhookTools: ToolDeclaration[] = [];
