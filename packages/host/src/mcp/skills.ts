import { readdir, readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import type { ToolSetSkill } from '../serving-support.js';
import {
  type McpServer,
  type Skill,
  type SkillReadResult,
  type SkillSource,
  SkillsExtension,
  skillEntry,
} from './sdk.js';

/** Where every skill is served: `skill://<name>/SKILL.md` and the files beside it (SEP-2640). */
const BASE_URI = 'skill://';

/** How long a client may keep a skill: like the tool list, it changes only with the host's plugins. */
const SKILL_TTL_MS = 5 * 60_000;

/** The skill's name: its folder's, which the SKILL.md frontmatter must repeat. */
function skillName(folder: string): string {
  return basename(fileURLToPath(folder));
}

/** The URI of a skill's SKILL.md, as skills/list, resources/list and the discovery tools give it. */
export function skillUri(folder: string): string {
  return `${BASE_URI}${skillName(folder)}/SKILL.md`;
}

/** Every regular file under `dir`, by its path relative to it with `/` separators. */
async function filesUnder(dir: string): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    // Links and special files are left out, as the SDK's own folder adapter leaves them.
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path).split(sep).join('/')] = await readFile(path);
  }
  return files;
}

const MIME_TYPES: Record<string, string> = {
  md: 'text/markdown',
  json: 'application/json',
  txt: 'text/plain',
};

function mimeTypeOf(path: string): string {
  return MIME_TYPES[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

/** The skills of one host, read from their plugins' folders. */
interface LoadedSkills {
  /** Sorted by URI. */
  entries: Skill[];
  byUri: Map<string, Skill>;
  files: Map<string, SkillReadResult>;
}

/**
 * The skills of the exposed tool sets, one per set that declares one, served through the MCP
 * Skills extension (`skills/list`, `skills/get`, and the files by `resources/read`) and listed
 * in `resources/list` for clients without it. Read once, at the first request that needs them:
 * a skill that breaks the format (its frontmatter, its name) is left out and logged, so that one
 * plugin's mistake does not cost the others theirs.
 */
export class ToolSetSkills {
  /** The SKILL.md URI of each tool set's skill, for the discovery tools to point to. */
  readonly uriOf: ReadonlyMap<string, string>;
  private loaded: Promise<LoadedSkills> | undefined;
  private readonly extension: SkillsExtension | undefined;

  constructor(
    private readonly skills: readonly ToolSetSkill[],
    private readonly logger?: Logger,
  ) {
    this.uriOf = new Map(skills.map((s) => [s.toolSet, skillUri(s.folder)]));
    this.extension =
      skills.length === 0
        ? undefined
        : new SkillsExtension({
            source: this.source(),
            baseUri: BASE_URI,
            cacheHint: { ttlMs: SKILL_TTL_MS, cacheScope: 'public' },
            onWarning: (w) => this.logger?.warn({ skill: w.path, problem: w.message }, 'skill left out'),
          });
  }

  /** Serves the skills on a server (before it connects); a host without skills declares nothing. */
  attach(mcp: McpServer): void {
    this.extension?.attach(mcp);
  }

  private load(): Promise<LoadedSkills> {
    this.loaded ??= this.read();
    return this.loaded;
  }

  private async read(): Promise<LoadedSkills> {
    const byUri = new Map<string, Skill>();
    const files = new Map<string, SkillReadResult>();
    for (const { toolSet, folder } of this.skills) {
      const name = skillName(folder);
      try {
        const contents = await filesUnder(fileURLToPath(folder));
        const skill = await skillEntry(name, contents, { baseUri: BASE_URI });
        if (byUri.has(skill.uri)) throw new Error(`another tool set already serves a skill named ${name}`);
        byUri.set(skill.uri, skill);
        for (const [path, bytes] of Object.entries(contents)) {
          const mimeType = mimeTypeOf(path);
          files.set(
            `${BASE_URI}${name}/${path}`,
            mimeType.startsWith('text/')
              ? { text: Buffer.from(bytes).toString('utf8'), mimeType }
              : { bytes, mimeType },
          );
        }
      } catch (e) {
        this.logger?.warn(
          { toolSet, skill: name, err: e instanceof Error ? e.message : String(e) },
          'skill left out',
        );
      }
    }
    const entries = [...byUri.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1));
    return { entries, byUri, files };
  }

  private source(): SkillSource {
    return {
      list: async () => ({ skills: (await this.load()).entries }),
      get: async (uri) => (await this.load()).byUri.get(uri),
      read: async (uri) => (await this.load()).files.get(uri),
      // For clients without the extension: each SKILL.md, as an ordinary resource.
      listResources: async () =>
        (await this.load()).entries.map((skill) => ({
          uri: skill.uri,
          name: skill.frontmatter.name,
          description: skill.frontmatter.description,
          mimeType: 'text/markdown',
        })),
    };
  }
}
