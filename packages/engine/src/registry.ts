import {
  type BehaviorHints,
  behaviorHints,
  buildInputSchema,
  type JsonSchema,
  qualifiedName,
  type ToolDeclaration,
  type ToolSetDefinition,
} from '@toolhost/core';

/** A declaration bound to its tool set's resolved servers, with derived facts computed once. */
export class RegisteredTool {
  readonly name: string;
  /** The name of the tool's set (`GridApi`), as in `toolSets.<set>` and before the dot of `name`. */
  readonly toolSet: string;
  readonly hints: BehaviorHints;
  private schema?: JsonSchema;

  constructor(
    readonly declaration: ToolDeclaration,
    /** The definition the tool's plugin registered: servers, traffic policy, settings. */
    readonly toolSetDefinition: ToolSetDefinition,
  ) {
    this.toolSet = toolSetDefinition.toolSet;
    this.name = qualifiedName(this.toolSet, declaration);
    this.hints = behaviorHints(declaration);
  }

  get inputSchema(): JsonSchema {
    this.schema ??= buildInputSchema(this.declaration);
    return this.schema;
  }

  get baseUrl(): string {
    return this.toolSetDefinition.servers[this.declaration.server ?? 'default']!;
  }
}

/** Indexes every registered tool by its qualified name `<ToolSet>.<ToolName>`. */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();

  constructor(toolSets: readonly ToolSetDefinition[]) {
    for (const set of toolSets) {
      for (const decl of set.tools) {
        const tool = new RegisteredTool(decl, set);
        if (this.tools.has(tool.name)) {
          throw new Error(`Tool ${tool.name} is registered by two plugins (${set.plugin.name} and another)`);
        }
        this.tools.set(tool.name, tool);
      }
    }
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  list(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  /** A new registry holding only the tools the predicate keeps. */
  filter(keep: (tool: RegisteredTool) => boolean): ToolRegistry {
    const sub = new ToolRegistry([]);
    for (const tool of this.tools.values()) if (keep(tool)) sub.tools.set(tool.name, tool);
    return sub;
  }
}
