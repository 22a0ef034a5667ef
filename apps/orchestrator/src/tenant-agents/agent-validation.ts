import { AgentSpec, BUILT_IN_AGENT_PREFIX, limitsFor, type TenantTiers } from '@platform/contracts';
import type { ProfileRegistry } from '../profiles.js';
import { globToRegExp } from '../profiles.js';
import { invalidSpec, nameTaken, notPermittedByTier } from './agent-errors.js';
import type { ModelConnections } from './model-connections.js';

/** Who writes, for the checks that depend on it. */
export interface SpecAuthor {
  tenantId: string;
  /** The caller's tier, already defaulted. */
  tier: string;
}

export interface AgentValidationDependencies {
  /** The built-in agents (the operator's profiles). */
  profiles: Pick<ProfileRegistry, 'resolve' | 'specOf'>;
  /** Which of these names are live agents of the tenant. */
  liveNames: (tenantId: string, names: string[]) => Promise<Set<string>>;
  tiers: TenantTiers;
  defaultTier: string;
  /** The tenant's model connections; absent: specs naming one are refused. */
  modelConnections?: ModelConnections;
  /** Which of these names are the tenant's remote agents; absent: specs naming one are refused. */
  remoteAgentNames?: (tenantId: string, names: string[]) => Promise<Set<string>>;
}

/** Characters jsonb (and Postgres text) cannot hold: a spec holding one is refused, never rewritten. */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string (or key) in `value` that cannot be stored, or undefined. */
export function unstorableField(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorableField(item, `${path}.${i}`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return path ? `${path}.${key}` : key;
      const found = unstorableField(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

/** Parses the spec (libs/contracts AgentSpec); INVALID_AGENT_SPEC naming every field at fault. */
export function parseAgentSpec(specJson: string): AgentSpec {
  let json: unknown;
  try {
    json = JSON.parse(specJson);
  } catch {
    throw invalidSpec([{ field: '', message: 'the spec is not valid JSON' }]);
  }
  const unstorable = unstorableField(json, '');
  if (unstorable !== undefined)
    throw invalidSpec([
      { field: unstorable, message: 'holds text that cannot be stored (NUL, or half a surrogate pair)' },
    ]);
  const parsed = AgentSpec.safeParse(json);
  if (!parsed.success)
    throw invalidSpec(parsed.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })));
  return parsed.data;
}

function permitted(patterns: string[] | undefined, value: string): boolean {
  return !patterns || patterns.some((p) => globToRegExp(p).test(value));
}

/** Refuses a model the tier does not permit its agents (NOT_PERMITTED_BY_TIER): in a spec, or a replay's model. */
export function checkModelTier(tiers: TenantTiers, defaultTier: string, tier: string, model: string): void {
  if (!permitted(limitsFor(tiers, tier, defaultTier).agentModels, model))
    throw notPermittedByTier(`the model '${model}' is not permitted for tier '${tier}'`);
}

/**
 * The checks of a tenant's spec that need the platform: the name is not a built-in agent's;
 * every role names a live agent of the tenant or a built-in one it may use; the tier permits the
 * models and tool patterns; a model connection is enabled and exists.
 */
export class AgentValidation {
  constructor(private readonly deps: AgentValidationDependencies) {}

  async check(author: SpecAuthor, spec: AgentSpec): Promise<void> {
    if (this.deps.profiles.specOf(spec.name) || spec.name.startsWith(BUILT_IN_AGENT_PREFIX)) throw nameTaken(spec.name);
    if (spec.access?.tenants)
      throw invalidSpec([{ field: 'access.tenants', message: "a tenant agent is its own tenant's: no tenants list" }]);
    this.checkTier(author, spec);
    await this.checkRoles(author, spec);
    await this.checkModelConnection(author, spec);
  }

  private checkTier(author: SpecAuthor, spec: AgentSpec): void {
    const limits = limitsFor(this.deps.tiers, author.tier, this.deps.defaultTier);
    const models = [spec.model, ...(spec.fallbackModels ?? []), ...(spec.overrides?.models ?? [])].filter(
      (m): m is string => m !== undefined,
    );
    for (const model of models) checkModelTier(this.deps.tiers, this.deps.defaultTier, author.tier, model);
    for (const tool of spec.tools)
      if (!permitted(limits.agentTools, tool))
        throw notPermittedByTier(`the tool pattern '${tool}' is not permitted for tier '${author.tier}'`);
  }

  /** A role done by a remote agent names one the tenant registered (its role name is free). */
  private async checkRemoteAgents(author: SpecAuthor, spec: AgentSpec): Promise<void> {
    const remote = spec.delegates
      .map((d, i) => ({ field: `delegates.${i}.remoteAgent`, name: d.remoteAgent }))
      .filter((r): r is { field: string; name: string } => r.name !== undefined);
    if (!remote.length) return;
    if (!this.deps.remoteAgentNames) throw notPermittedByTier('remote agents are not enabled');
    const existing = await this.deps.remoteAgentNames(
      author.tenantId,
      remote.map((r) => r.name),
    );
    const issues = remote
      .filter((r) => !existing.has(r.name))
      .map(({ field, name }) => ({ field, message: `no remote agent '${name}' (POST /v1/remote-agents)` }));
    if (issues.length) throw invalidSpec(issues);
  }

  private async checkRoles(author: SpecAuthor, spec: AgentSpec): Promise<void> {
    await this.checkRemoteAgents(author, spec);
    const named: { field: string; role: string }[] = [];
    spec.delegates.forEach((d, i) => {
      if (d.remoteAgent === undefined) named.push({ field: `delegates.${i}.role`, role: d.role });
      if (d.fallbackRole) named.push({ field: `delegates.${i}.fallbackRole`, role: d.fallbackRole });
    });
    spec.committees.forEach((c, i) => {
      c.roles.forEach((role, j) => named.push({ field: `committees.${i}.roles.${j}`, role }));
      if (c.arbiter) named.push({ field: `committees.${i}.arbiter`, role: c.arbiter });
    });
    if (!named.length) return;
    const live = await this.deps.liveNames(
      author.tenantId,
      named.map((n) => n.role),
    );
    const issues = named
      .filter(
        ({ role }) =>
          role !== spec.name && !live.has(role) && !this.deps.profiles.resolve(role, { ...author, tier: author.tier }),
      )
      .map(({ field, role }) => ({ field, message: `no agent named '${role}' (yours or a built-in one you may use)` }));
    if (issues.length) throw invalidSpec(issues);
  }

  private async checkModelConnection(author: SpecAuthor, spec: AgentSpec): Promise<void> {
    if (spec.modelConnection === undefined) return;
    const connections = this.deps.modelConnections;
    if (!connections) throw notPermittedByTier('model connections are not enabled');
    if (!(await connections.exists(author.tenantId, author.tier, spec.modelConnection)))
      throw invalidSpec([{ field: 'modelConnection', message: `no model connection '${spec.modelConnection}'` }]);
  }
}
