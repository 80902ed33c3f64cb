export declare const VENDORED_SCHEMA_PATH: string;
export declare function vendoredSchema(): Record<string, unknown>;
export declare function schemaProblems(server: unknown, schema: Record<string, unknown>): string[];
export interface PublishedPackage {
  version: string;
  mcpName?: string;
}
export declare function registryProblems(
  server: Record<string, unknown>,
  options?: { npmPackage?: (name: string) => PublishedPackage | undefined; githubOwner?: string },
): string[];
/** Owner and repository name of a package.json `repository` on GitHub, in any form npm accepts; throws otherwise. */
export declare function githubRepository(repository: unknown): { owner: string; repo: string };
