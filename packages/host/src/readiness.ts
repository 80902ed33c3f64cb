import type { AuthProvider, SecretSource, ToolSetDefinition } from '@toolhost/core';
import { credentialProblem } from '@toolhost/engine/internal';

/** One credential or setting a tool set needs, and whether it is there. */
export interface CredentialCheck {
  /** `auth provider crm-auth-provider`, `secret CDP_API_KEY` or `setting userId`. */
  what: string;
  ok: boolean;
  /** How it is provided, or what to set (never a value). */
  detail: string;
}

export interface ToolSetReadiness {
  toolSet: string;
  plugin: { name: string; version: string };
  /** Tools of the set the configuration exposes. */
  tools: number;
  /** Every credential is there: calls can reach the upstream (users may still need to authorize). */
  ready: boolean;
  checks: CredentialCheck[];
}

function providerCheck(id: string, provider: AuthProvider | undefined): CredentialCheck {
  const what = `auth provider ${id}`;
  if (!provider) return { what, ok: false, detail: 'no provider is configured' };
  // Each provider says whether it is set up (a static token, an OAuth client); one that does
  // not say was set up by the embedder who supplied it.
  const setup = provider.setup?.() ?? { ok: true, detail: 'provided by the embedding runtime' };
  return { what, ...setup };
}

/**
 * One check per plugin setting that exposed tools fill a required parameter from, naming the
 * tools that fail while it is not configured (CrmAutomationApi's sequence tools without
 * `settings.userId`): the rest of the set works, so the person sees exactly what does not.
 */
function settingChecks(
  set: ToolSetDefinition,
  tools: ToolSetDefinition['tools'],
  hint: (toolSet: string, setting: string) => string,
): CredentialCheck[] {
  const needing = new Map<string, string[]>();
  for (const tool of tools) {
    for (const p of tool.params ?? []) {
      if (!p.fromSetting || !p.required) continue;
      const value = set.settingValues?.[p.fromSetting];
      const names = needing.get(p.fromSetting) ?? [];
      if (value === undefined || value === '') names.push(`${set.toolSet}.${tool.name}`);
      needing.set(p.fromSetting, names);
    }
  }
  return [...needing].map(([setting, failing]) => {
    return failing.length === 0
      ? { what: `setting ${setting}`, ok: true, detail: 'set' }
      : {
          what: `setting ${setting}`,
          ok: false,
          detail: `${hint(set.toolSet, setting)}; without it ${failing.length} tool${failing.length === 1 ? '' : 's'} fail: ${failing.join(', ')}`,
        };
  });
}

/** What readiness is judged from: the host's loaded sets and services, handed over by the host. */
export interface ReadinessInputs {
  sets: readonly ToolSetDefinition[];
  providers: readonly AuthProvider[];
  secrets: SecretSource;
  /** Canonical names of the tools the configuration exposes. */
  exposed: ReadonlySet<string>;
  /** Whose secrets are looked up (the host's default user). */
  userId: string;
  /** What to do to give a tool set a missing setting. */
  settingHint: (toolSet: string, setting: string) => string;
}

/**
 * Whether each loaded tool set can be called yet, and why not: the auth providers and secrets
 * and plugin settings its exposed tools need. Reads configuration only; nothing is sent.
 */
export async function toolSetReadiness(inputs: ReadinessInputs): Promise<ToolSetReadiness[]> {
  const { sets, secrets, exposed, userId } = inputs;
  const providers = new Map(inputs.providers.map((p) => [p.id, p]));
  const out: ToolSetReadiness[] = [];
  for (const set of sets) {
    const tools = set.tools.filter((t) => exposed.has(`${set.toolSet}.${t.name}`));
    const checks: CredentialCheck[] = [];
    const seen = new Set<string>();
    for (const { auth } of tools) {
      const key = auth.kind === 'provider' ? auth.provider : auth.kind === 'secret' ? auth.secret : '';
      if (!key || seen.has(key)) continue;
      seen.add(key);
      if (auth.kind === 'provider') checks.push(providerCheck(auth.provider, providers.get(auth.provider)));
      else if (auth.kind === 'secret') {
        const value = await secrets.getSecret(auth.secret, { userId });
        const how = secrets.describe?.(auth.secret) ?? `set ${auth.secret}`;
        const problem = value ? credentialProblem(value) : undefined;
        checks.push({
          what: `secret ${auth.secret}`,
          ok: Boolean(value) && !problem,
          detail: problem ? `${auth.secret} holds ${problem}; ${how}` : value ? 'set' : how,
        });
      }
    }
    checks.push(...settingChecks(set, tools, inputs.settingHint));
    out.push({
      toolSet: set.toolSet,
      plugin: set.plugin,
      tools: tools.length,
      ready: checks.every((c) => c.ok),
      checks,
    });
  }
  // Code-point order, not localeCompare: tool set names are ASCII identifiers, and the first
  // localeCompare of a process loads ICU's collation, about 100 ms of every serve start.
  return out.sort((a, b) => (a.toolSet < b.toolSet ? -1 : a.toolSet > b.toolSet ? 1 : 0));
}
