import type { JsonSchema } from '@toolhost/core';
import type { PastRequest } from '@toolhost/search';
import type { ProviderService } from './auth/provider-services.js';
import type { Connections } from './connections.js';
import type { Logger } from './logger.js';
import type { AuditLog } from './observability/audit-log.js';
import type { GaugeSource } from './observability/state-gauges.js';
import type { ToolSetReadiness } from './readiness.js';
import type { Replicas } from './replicas.js';

/** A tool's query parameter, by its name in the tool and in the upstream API. */
export interface QueryParameterName {
  name: string;
  apiName: string;
}

/** A loaded tool set's skill, as its plugin declared it (contract 2.4). */
export interface ToolSetSkill {
  toolSet: string;
  /** The `file:` URL of the skill's folder (named as the skill is, holding its SKILL.md). */
  folder: string;
}

/**
 * What the transports (HTTP, stdio) need of the host beyond listing and calling tools, so that
 * they take it from here and never from the host's container. Types only: the host fills it.
 */
export interface ServingSupport {
  /** Where a transport tells what went wrong inside the host (never its caller). */
  readonly logger: Logger | undefined;
  /** The operator's audit log (`audit.log`), when turned on. */
  readonly auditLog: AuditLog | undefined;
  /** What replicas share (Redis), when configured: sessions, confirmations, signing keys, results. */
  readonly replicas: Replicas | undefined;
  /** A tool's query parameters that a caller sets (not those filled from settings), for next-page hints. */
  queryParameters(tool: string): readonly QueryParameterName[];
  /** Why `name` is not a tool one can call here: the right spelling, the key that hides it, or a close name. */
  explainUnknownTool(name: string, exposed: ReadonlySet<string>, spelling: 'canonical' | 'mcp'): string;
  /** A mode tool's request-body schema (`get_request_schema` answers it); undefined for other tools. */
  requestBodySchema(tool: string): JsonSchema | undefined;
  /** Whether each loaded tool set can be called yet, and what is missing (read from configuration; nothing sent). */
  readiness(): Promise<ToolSetReadiness[]>;
  /** The users' OAuth connections: listed and ended by `/connections`. */
  readonly connections: Connections;
  /** The skills of the tool sets this host exposes, one per set that declares one. */
  readonly skills: readonly ToolSetSkill[];
  /**
   * Requests people made that the exposed tools answer, as the plugins declare them, with
   * canonical tool names: `search_tools` leans on the ones most like a request.
   */
  readonly pastRequests: readonly PastRequest[];
  /** The service behind each OAuth provider (the vendor, the scopes to ask for), for `/connections`. */
  providerServices(): Map<string, ProviderService>;
  /** Shows a state of the transport on `/metrics` (the sessions it holds), read at each scrape. */
  gauge(source: GaugeSource): void;
  /**
   * The transport serves `/metrics`: calls are counted from now on. The counters' modules load
   * at the host's warm-up after its first `tools/list` answer, or at the first call or scrape
   * before that.
   */
  countCalls(): void;
  /** The host's environment (the options' `env`, default process.env), for settings read at serve time. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The host's own encrypted data directory and key (TOOLHOST_TOKEN_KEY), when it keeps files. */
  readonly dataDir: { dataDir: string; key: string } | undefined;
}
