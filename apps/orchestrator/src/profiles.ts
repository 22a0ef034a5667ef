import { readFileSync } from 'node:fs';
import {
  compileLoopConfig,
  LoopConfigSchema,
  type LoopConfig,
  type ModelPort,
  type SamplingParameters,
} from '@platform/agent-loop';
import {
  CommitteeSpec,
  DelegateSpec,
  MultitaskPolicy,
  NamedError,
  OutputSchema,
  PlanningSpec,
  TenantId,
} from '@platform/contracts';
import { TextProtocolModel } from '@platform/llm';
import { z } from 'zod';
import { ToolProtocol } from './config.js';
import { OutputSchemas } from './structured/output-schemas.js';

const ProfileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');

/**
 * Who may use a profile: callers pick profiles by name, so a profile with more tools or a dearer
 * model can be kept to some tenants or tiers. Absent: everyone.
 */
const ProfileAccess = z
  .object({
    /** Tenants (the token's tenant) that may use it; absent: every tenant. */
    tenants: z.array(TenantId).min(1).optional(),
    /** Tiers (the token's `tier` claim, else DEFAULT_TIER) that may use it; absent: every tier. */
    tiers: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();
type ProfileAccess = z.infer<typeof ProfileAccess>;

/** Who asks for a profile. */
export interface ProfileCaller {
  tenantId: string;
  /** The caller's tier, already defaulted (DEFAULT_TIER when the token has none). */
  tier: string;
  /** The end user (the token's `sub`), for a tenant agent's `access.subjects`; absent: unknown. */
  subject?: string;
}

// The roles, committees and planning of a profile are an agent's (libs/contracts agent-spec.ts):
// the profiles file and a tenant's agents share one definition.
export { DelegateSpec, CommitteeSpec, PlanningSpec };

/** One agent profile as written in the profiles file. */
const AgentProfileSpec = z
  .object({
    name: ProfileName,
    /** The persona. */
    systemPrompt: z.string().min(1),
    /** Default: LLM_MODEL. */
    model: z.string().min(1).optional(),
    /** Default: LLM_FALLBACK_MODELS. */
    fallbackModels: z.array(z.string().min(1)).optional(),
    /**
     * How the model calls tools: `native` function calling, or `text`, the ReAct text protocol
     * (Thought / Action / Final Answer) for models served without function calling. Default:
     * LLM_TOOL_PROTOCOL.
     */
    toolProtocol: ToolProtocol.optional(),
    /**
     * Whether the profile's models accept structured output (OpenAI `response_format:
     * json_schema`). The planner of a plan-and-execute profile asks for its plan with it; false:
     * it asks for JSON in text. Default true (a provider that refuses it is asked in text anyway).
     */
    structuredOutput: z.boolean().default(true),
    /** Tool names the agent may use; `*` matches any run of characters. Default: all tools. */
    tools: z.array(z.string().min(1)).default(['*']),
    /** Loop settings that differ from the orchestrator's (e.g. `{ "maxTurns": 4 }`). */
    loop: LoopConfigSchema.partial().strict().optional(),
    /** Who may use it (default: everyone). */
    access: ProfileAccess.optional(),
    /** Roles (other profiles) this agent may hand tasks to, each as a tool (see docs/plans-and-teams.md). */
    delegates: z.array(DelegateSpec).default([]),
    /** `react` (the ReAct loop) or `plan-and-execute` (a plan of subtasks run as child runs). */
    strategy: z.enum(['react', 'plan-and-execute']).default('react'),
    /** Settings of the plan-and-execute strategy (required with it). */
    planning: PlanningSpec.optional(),
    /** Committees this agent may ask (see docs/plans-and-teams.md). */
    committees: z.array(CommitteeSpec).default([]),
    /**
     * A JSON Schema (draft 2020-12) its answers must be valid against: the run's result then
     * carries the answer as `output` (docs/agent-loop.md, "Structured answers"). A message's own
     * output schema wins over it.
     */
    outputSchema: OutputSchema.optional(),
    /** What a message does while a run is in flight, when it names no policy (default `enqueue`; docs/conversations.md). */
    multitask: MultitaskPolicy.optional(),
  })
  .strict();
export type AgentProfileSpec = z.infer<typeof AgentProfileSpec>;

export const AgentProfilesFile = z
  .object({
    defaultProfile: ProfileName,
    profiles: z.array(AgentProfileSpec).min(1),
  })
  .strict()
  .superRefine((file, ctx) => {
    const names = file.profiles.map((p) => p.name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i)
        ctx.addIssue({ code: 'custom', path: ['profiles', i, 'name'], message: `profile '${name}' is defined twice` });
    });
    file.profiles.forEach((profile, i) => {
      const roles = profile.delegates.map((d) => d.role);
      profile.delegates.forEach(({ remoteAgent }, j) => {
        // Remote agents are a tenant's own (POST /v1/remote-agents): only a tenant agent names one.
        if (remoteAgent !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['profiles', i, 'delegates', j, 'remoteAgent'],
            message: "remote agents are a tenant's: only a tenant agent's delegates may name one",
          });
      });
      roles.forEach((role, j) => {
        if (!names.includes(role))
          ctx.addIssue({
            code: 'custom',
            path: ['profiles', i, 'delegates', j, 'role'],
            message: `no profile named '${role}'`,
          });
        if (roles.indexOf(role) !== j)
          ctx.addIssue({
            code: 'custom',
            path: ['profiles', i, 'delegates', j, 'role'],
            message: `role '${role}' is listed twice`,
          });
      });
      profile.delegates.forEach(({ role, fallbackRole }, j) => {
        if (fallbackRole === undefined) return;
        const at = ['profiles', i, 'delegates', j, 'fallbackRole'];
        if (!names.includes(fallbackRole))
          ctx.addIssue({ code: 'custom', path: at, message: `no profile named '${fallbackRole}'` });
        if (fallbackRole === role)
          ctx.addIssue({
            code: 'custom',
            path: at,
            message: 'the fallback role must differ from the role it stands in for',
          });
        if (fallbackRole === profile.name)
          ctx.addIssue({
            code: 'custom',
            path: at,
            message: 'a profile cannot reassign a task to itself (that would loop)',
          });
      });
      profile.committees.forEach((committee, j) => {
        const at = ['profiles', i, 'committees', j];
        if (profile.committees.findIndex((c) => c.name === committee.name) !== j)
          ctx.addIssue({
            code: 'custom',
            path: [...at, 'name'],
            message: `committee '${committee.name}' is defined twice`,
          });
        committee.roles.forEach((role, k) => {
          if (!names.includes(role))
            ctx.addIssue({ code: 'custom', path: [...at, 'roles', k], message: `no profile named '${role}'` });
        });
        if (committee.strategy === 'arbiter' && !committee.arbiter)
          ctx.addIssue({
            code: 'custom',
            path: [...at, 'arbiter'],
            message: 'the arbiter strategy needs an "arbiter" role',
          });
        if (committee.arbiter && !names.includes(committee.arbiter))
          ctx.addIssue({
            code: 'custom',
            path: [...at, 'arbiter'],
            message: `no profile named '${committee.arbiter}'`,
          });
      });
      if (profile.strategy === 'plan-and-execute' && !profile.planning) {
        ctx.addIssue({
          code: 'custom',
          path: ['profiles', i, 'planning'],
          message: 'a plan-and-execute profile needs "planning" with its executor role',
        });
      }
      if (profile.planning && !roles.includes(profile.planning.executor)) {
        ctx.addIssue({
          code: 'custom',
          path: ['profiles', i, 'planning', 'executor'],
          message: `the executor must be one of the profile's delegates (${roles.join(', ') || 'none'})`,
        });
      }
    });
    // Checked once here, with the same compiler the turns use, so a file with a broken schema does not boot.
    const schemas = new OutputSchemas();
    file.profiles.forEach((profile, i) => {
      if (!profile.outputSchema) return;
      try {
        schemas.compile(profile.outputSchema);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['profiles', i, 'outputSchema'], message: (err as Error).message });
      }
    });
    if (!names.includes(file.defaultProfile))
      ctx.addIssue({ code: 'custom', path: ['defaultProfile'], message: `no profile named '${file.defaultProfile}'` });
    // A request that names no profile gets the default: every caller must be allowed to use it.
    const fallback = file.profiles.findIndex((p) => p.name === file.defaultProfile);
    if (fallback >= 0 && file.profiles[fallback]!.access) {
      ctx.addIssue({
        code: 'custom',
        path: ['profiles', fallback, 'access'],
        message: 'the default profile is for every caller and takes no access rules',
      });
    }
  });
export type AgentProfilesFile = z.infer<typeof AgentProfilesFile>;

/** How the profiles are made: the file, or the settings of the one `default` profile (and every profile's defaults). */
export interface ProfileRegistryOptions {
  /** The profiles file (JSON); absent: one `default` profile of the settings below. */
  profilesFile?: string;
  /** The default profile's system prompt. */
  systemPrompt: string;
  /** How tools reach the model, for profiles that do not say. */
  toolProtocol: ToolProtocol;
  /** The model, for profiles that do not name one. */
  model: string;
  /** The models tried in turn when the model fails, for profiles that do not name theirs. */
  fallbackModels: string[];
  /** The engine's settings; a profile's `loop` overrides some of them. */
  loopConfig: LoopConfig;
}

/** A profile ready to run turns. */
export interface RunnableAgent {
  name: string;
  systemPrompt: string;
  model: ModelPort;
  fallbackModels: ModelPort[];
  loopConfig: LoopConfig;
  allowsTool: (name: string) => boolean;
  /** Whether this caller may use the profile (its access rules). */
  allowsCaller: (caller: ProfileCaller) => boolean;
  /** The roles it may delegate to. */
  delegates: DelegateSpec[];
  strategy: 'react' | 'plan-and-execute';
  planning?: PlanningSpec;
  committees: CommitteeSpec[];
  /** Whether its models accept structured output (the planner asks for its plan with it; so do output schemas). */
  structuredOutput: boolean;
  /** A JSON Schema its answers must be valid against (a message's own wins); absent: free text. */
  outputSchema?: Record<string, unknown>;
  /** Whether a turn recalls long-term memory (a tenant agent's `memory.recall`; absent: it does). */
  recall?: boolean;
  /** Most tokens of recalled memory (a tenant agent's `memory.budgetTokens`; absent: MEMORY_CONTEXT_TOKENS). */
  recallBudgetTokens?: number;
  /** Set for a tenant agent: the agent and version this profile was compiled from. */
  agent?: { id: string; version: number };
  /** Sampling settings sent with its model calls (a tenant agent's `modelParameters`); absent: the provider's. */
  sampling?: SamplingParameters;
  /** A message's policy while a run is in flight, when it names none (absent: `enqueue`). */
  multitask?: MultitaskPolicy;
}

export class ProfilesFileError extends NamedError {
  readonly code = 'PROFILES_INVALID';
}

export function globToRegExp(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** Reads and checks the profiles file; every error names the file and the field at fault. */
export function readProfilesFile(path: string): AgentProfilesFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ProfilesFileError(`AGENT_PROFILES_FILE ${path}: cannot read it as JSON: ${(err as Error).message}`);
  }
  const parsed = AgentProfilesFile.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ');
  throw new ProfilesFileError(`AGENT_PROFILES_FILE ${path}: ${problems}`);
}

/** The profiles of this orchestrator, by name, with the one used when a request names none. */
export class ProfileRegistry {
  private constructor(
    private readonly byName: Map<string, RunnableAgent>,
    readonly defaultName: string,
    private readonly specs: Map<string, AgentProfileSpec>,
  ) {}

  /**
   * From the profiles file when one is configured; otherwise one `default` profile made of the
   * orchestrator's own settings (system prompt, model, fallback models, tool protocol, loop settings).
   */
  static fromOptions(options: ProfileRegistryOptions, modelFor: (name: string) => ModelPort): ProfileRegistry {
    const base = options.loopConfig;
    const file: AgentProfilesFile = options.profilesFile
      ? readProfilesFile(options.profilesFile)
      : {
          defaultProfile: 'default',
          profiles: [
            {
              name: 'default',
              systemPrompt: options.systemPrompt,
              tools: ['*'],
              delegates: [],
              strategy: 'react',
              committees: [],
              structuredOutput: true,
            },
          ],
        };
    const profiles = new Map<string, RunnableAgent>();
    for (const spec of file.profiles) {
      const patterns = spec.tools.map(globToRegExp);
      const text = (spec.toolProtocol ?? options.toolProtocol) === 'text';
      const modelOf = (name: string): ModelPort => (text ? new TextProtocolModel(modelFor(name)) : modelFor(name));
      profiles.set(spec.name, {
        name: spec.name,
        systemPrompt: spec.systemPrompt,
        model: modelOf(spec.model ?? options.model),
        fallbackModels: (spec.fallbackModels ?? options.fallbackModels).map(modelOf),
        loopConfig: spec.loop ? compileLoopConfig({ ...base, ...spec.loop }) : base,
        allowsTool: (name) => patterns.some((p) => p.test(name)),
        delegates: spec.delegates,
        strategy: spec.strategy,
        committees: spec.committees,
        structuredOutput: spec.structuredOutput,
        ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
        ...(spec.planning ? { planning: spec.planning } : {}),
        ...(spec.multitask ? { multitask: spec.multitask } : {}),
        allowsCaller: ({ tenantId, tier }) =>
          (!spec.access?.tenants || spec.access.tenants.includes(tenantId)) &&
          (!spec.access?.tiers || spec.access.tiers.includes(tier)),
      });
    }
    return new ProfileRegistry(profiles, file.defaultProfile, new Map(file.profiles.map((p) => [p.name, p])));
  }

  /**
   * The named profile (or the default). Undefined when no profile has that name, and, given a
   * caller, also when its access rules keep that caller out: the two look alike to the caller,
   * so names of profiles it may not use do not leak.
   */
  resolve(name: string | undefined, caller?: ProfileCaller): RunnableAgent | undefined {
    const profile = this.byName.get(name || this.defaultName);
    return profile && (!caller || profile.allowsCaller(caller)) ? profile : undefined;
  }

  /** The profile as the file writes it (what a tenant reads of a built-in agent), or undefined. */
  specOf(name: string): AgentProfileSpec | undefined {
    return this.specs.get(name);
  }

  /** Every profile's name. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The profiles this caller may use. */
  namesFor(caller: ProfileCaller): string[] {
    return [...this.byName.values()].filter((p) => p.allowsCaller(caller)).map((p) => p.name);
  }
}
