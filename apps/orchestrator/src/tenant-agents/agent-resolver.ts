import { BUILT_IN_AGENT_PREFIX, compositeKey, RunOverrides, type TenantRole } from '@platform/contracts';
import { errors, isPlatformError } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';
import type { RunnableAgent, ProfileRegistry } from '../profiles.js';
import {
  compileAgent,
  overrideRefusal,
  withOverrides,
  type AgentCompileDefaults,
  type CompiledAgent,
  type ModelMaker,
} from './agent-compile.js';
import type { AgentDirectory } from './agent-directory.js';
import { agentDeleted, agentError, agentNotFound, versionNotFound } from './agent-errors.js';
import type { AgentStore } from './agent-store.js';
import { isTenantAgentId, type AgentRecord } from './agent-types.js';
import { unstorableField } from './agent-validation.js';
import type { ModelConnections } from './model-connections.js';

/** Compiled versions kept per replica (versions are immutable: nothing to invalidate, only to bound). */
const MAX_COMPILED = 2_000;

/** A message's request for an agent. */
export interface AgentRequest {
  tenantId: string;
  conversationId: string;
  /** The caller's tier, already defaulted. */
  tier: string;
  /** The end user (`sub`); empty: unknown. */
  subject: string;
  /** An agent id, a tenant agent's name or a built-in profile's name; empty: the default profile. */
  ref: string;
  /** 0: the conversation's pin, else the active version. */
  version: number;
  overridesJson: string;
  /** The agent version of the run this message answers (it waits for the user): it goes on under it. */
  continues?: { id: string; version: number };
}

/** What a message runs under, recorded on its run. */
export interface ResolvedAgent {
  /** The agent's (or built-in profile's) name: the run's `profile`. */
  name: string;
  agent: { id: string; version: number };
  overrides?: RunOverrides;
  /** The profile the run will run under (its access was checked). */
  profile: RunnableAgent;
}

/** What a run recorded, for the turn's resolution. */
export interface RunAgentPin {
  tenantId: string;
  profile: string;
  agent?: { id: string; version: number };
  overrides?: RunOverrides;
}

export interface AgentResolverDependencies {
  profiles: Pick<ProfileRegistry, 'resolve' | 'namesFor' | 'specOf' | 'defaultName'>;
  directory: Pick<AgentDirectory, 'agent' | 'pin'>;
  store: Pick<AgentStore, 'version'>;
  defaults: AgentCompileDefaults;
  /** The tier of runs that recorded none. */
  defaultTier: string;
  /** The platform's endpoint. */
  modelFor: ModelMaker;
  modelConnections?: ModelConnections;
}

/**
 * Resolves what a message names to an agent version (HandleMessage), and a run's recorded agent
 * version to a compiled profile (the turn's agent-resolution step). A name is a tenant agent's
 * first, then a built-in profile's; the version is the message's, else the conversation's pin,
 * else the agent's active one.
 */
export class AgentResolver {
  private readonly compiled = new Map<string, CompiledAgent>();

  constructor(private readonly deps: AgentResolverDependencies) {}

  private get defaultTier(): string {
    return this.deps.defaultTier;
  }

  async forMessage(request: AgentRequest): Promise<ResolvedAgent> {
    const { tenantId } = request;
    const caller = { tenantId, tier: request.tier, ...(request.subject ? { subject: request.subject } : {}) };
    const overrides = parseOverrides(request.overridesJson);
    const continues = request.version ? undefined : request.continues;
    const pin = continues ? undefined : await this.deps.directory.pin(tenantId, request.conversationId);
    const ref = continues?.id ?? pin?.agentId ?? request.ref;
    const tenantAgent =
      ref && !ref.startsWith(BUILT_IN_AGENT_PREFIX) ? await this.deps.directory.agent(tenantId, ref) : undefined;
    if (!tenantAgent) {
      if (isTenantAgentId(ref)) throw agentNotFound(ref);
      return this.builtIn(ref, request.version, overrides, caller);
    }
    if (tenantAgent.deletedAt) throw agentDeleted(ref);
    const version = continues?.version || request.version || pin?.version || tenantAgent.activeVersion;
    if (!version)
      throw agentError(
        'not_found',
        ErrorCodes.AGENT_VERSION_NOT_FOUND,
        `the agent '${tenantAgent.name}' has only drafts: name the version to try one`,
      );
    const compiled = await this.compiledVersion(tenantId, tenantAgent, version);
    if (!compiled.profile.allowsCaller(caller)) throw agentNotFound(ref);
    const refusal = overrides && overrideRefusal(compiled.spec, overrides);
    if (refusal) throw agentError('invalid_argument', ErrorCodes.OVERRIDE_NOT_ALLOWED, refusal);
    return {
      name: tenantAgent.name,
      agent: { id: tenantAgent.agentId, version },
      ...(overrides ? { overrides } : {}),
      profile: overrides ? withOverrides(compiled.profile, overrides, compiled.modelOf) : compiled.profile,
    };
  }

  /**
   * The profile a run runs under: its recorded tenant agent version (compiled once per replica),
   * else its built-in profile by name; with the run's overrides. Undefined when it is gone (a
   * built-in profile removed from the file); a tenant agent's versions never go.
   */
  async forRun(run: RunAgentPin): Promise<RunnableAgent | undefined> {
    const agent = run.agent;
    if (!agent || agent.id.startsWith(BUILT_IN_AGENT_PREFIX)) {
      const profile = this.deps.profiles.resolve(run.profile);
      if (!profile || !run.overrides) return profile;
      return withOverrides(profile, run.overrides, (name) => this.deps.modelFor(name));
    }
    const key = compositeKey(run.tenantId, agent.id, String(agent.version));
    let compiled = this.compiled.get(key);
    if (!compiled) {
      try {
        compiled = await this.compiledVersion(run.tenantId, { agentId: agent.id, name: run.profile }, agent.version);
      } catch (err) {
        if (isPlatformError(err) && err.code === ErrorCodes.AGENT_VERSION_NOT_FOUND) return undefined;
        throw err;
      }
    }
    return run.overrides ? withOverrides(compiled.profile, run.overrides, compiled.modelOf) : compiled.profile;
  }

  /** The roles a run's tenant agent version names as its approvers (`approverRoles`); undefined for a built-in agent or none named. */
  async approverRolesOf(
    tenantId: string,
    agent: { id: string; version: number },
  ): Promise<readonly TenantRole[] | undefined> {
    if (agent.id.startsWith(BUILT_IN_AGENT_PREFIX) || agent.version <= 0) return undefined;
    return (await this.deps.store.version(tenantId, agent.id, agent.version))?.spec.approverRoles;
  }

  /**
   * The agent version a child run of this role runs under, fixed at its creation: the tenant's
   * live agent of that name at its active version, else the built-in profile the caller may use.
   */
  async agentOfRole(
    run: { tenantId: string; tier: string },
    role: string,
  ): Promise<{ id: string; version: number } | undefined> {
    const agent = await this.deps.directory.agent(run.tenantId, role);
    if (agent && !agent.deletedAt && agent.activeVersion) return { id: agent.agentId, version: agent.activeVersion };
    const profile = this.deps.profiles.resolve(role, { tenantId: run.tenantId, tier: run.tier || this.defaultTier });
    return profile ? { id: `${BUILT_IN_AGENT_PREFIX}${profile.name}`, version: 0 } : undefined;
  }

  /** The profile a child run of this role would run under (agentOfRole, compiled), for what it allows. */
  async profileOfRole(run: { tenantId: string; tier: string }, role: string): Promise<RunnableAgent | undefined> {
    const agent = await this.agentOfRole(run, role);
    return agent ? this.forRun({ tenantId: run.tenantId, profile: role, agent }) : undefined;
  }

  private builtIn(
    ref: string,
    version: number,
    overrides: RunOverrides | undefined,
    caller: { tenantId: string; tier: string },
  ): ResolvedAgent {
    const name = ref.startsWith(BUILT_IN_AGENT_PREFIX) ? ref.slice(BUILT_IN_AGENT_PREFIX.length) : ref;
    const profile = this.deps.profiles.resolve(name, caller);
    if (!profile) {
      if (ref.startsWith(BUILT_IN_AGENT_PREFIX)) throw agentNotFound(ref);
      throw errors.notFound(
        ErrorCodes.PROFILE_NOT_FOUND,
        `no agent profile '${ref}' for you; yours: ${this.deps.profiles.namesFor(caller).join(', ')}`,
      );
    }
    if (version) throw versionNotFound(ref, version);
    const spec = this.deps.profiles.specOf(profile.name);
    if (overrides) {
      const refusal = overrideRefusal(
        {
          model: spec?.model ?? this.deps.defaults.model,
          ...(spec?.fallbackModels ? { fallbackModels: spec.fallbackModels } : {}),
          ...(spec?.loop?.maxTurns !== undefined ? { loop: { maxTurns: spec.loop.maxTurns } } : {}),
        },
        overrides,
      );
      if (refusal) throw agentError('invalid_argument', ErrorCodes.OVERRIDE_NOT_ALLOWED, refusal);
    }
    return {
      name: profile.name,
      agent: { id: `${BUILT_IN_AGENT_PREFIX}${profile.name}`, version: 0 },
      ...(overrides ? { overrides } : {}),
      profile: overrides ? withOverrides(profile, overrides, (m) => this.deps.modelFor(m)) : profile,
    };
  }

  private async compiledVersion(
    tenantId: string,
    agent: Pick<AgentRecord, 'agentId' | 'name'>,
    version: number,
  ): Promise<CompiledAgent> {
    const key = compositeKey(tenantId, agent.agentId, String(version));
    const hit = this.compiled.get(key);
    if (hit) return hit;
    const stored = await this.deps.store.version(tenantId, agent.agentId, version);
    if (!stored) throw versionNotFound(agent.name, version);
    const connection = stored.spec.modelConnection;
    const connections = this.deps.modelConnections;
    let makeModel = this.deps.modelFor;
    if (connection !== undefined) {
      if (!connections)
        throw agentError('permission_denied', ErrorCodes.NOT_PERMITTED_BY_TIER, 'model connections are not enabled');
      // The models of a connection are made when the version is first compiled here.
      const models = new Map<string, Awaited<ReturnType<ModelConnections['modelFor']>>>();
      for (const name of [stored.spec.model, ...(stored.spec.fallbackModels ?? [])].filter((m): m is string => !!m))
        models.set(name, await connections.modelFor(tenantId, connection, name));
      makeModel = (name) => models.get(name) ?? this.deps.modelFor(name);
    }
    const compiled = compileAgent({ id: agent.agentId, version }, stored.spec, this.deps.defaults, makeModel);
    if (this.compiled.size >= MAX_COMPILED) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(key, compiled);
    return compiled;
  }
}

/** A message's overrides (RunOverrides), or undefined for none; OVERRIDE_NOT_ALLOWED naming the field at fault. */
function parseOverrides(json: string): RunOverrides | undefined {
  if (!json) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw agentError('invalid_argument', ErrorCodes.OVERRIDE_NOT_ALLOWED, 'overrides: not valid JSON');
  }
  const unstorable = unstorableField(value, 'overrides');
  if (unstorable !== undefined)
    throw agentError(
      'invalid_argument',
      ErrorCodes.OVERRIDE_NOT_ALLOWED,
      `${unstorable}: holds text that cannot be stored (NUL, or half a surrogate pair)`,
    );
  const parsed = RunOverrides.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw agentError(
      'invalid_argument',
      ErrorCodes.OVERRIDE_NOT_ALLOWED,
      `overrides${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`,
    );
  }
  return Object.keys(parsed.data).length ? parsed.data : undefined;
}
