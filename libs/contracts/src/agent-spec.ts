import { z } from 'zod';
import { MultitaskPolicy } from './multitask.js';
import { TenantId } from './ids.js';
import { RemoteAgentName } from './remote-agents.js';
import { TenantRole } from './tenant-roles.js';

// An agent as a tenant writes it (POST/PUT /v1/agents, the orchestrator's AgentService) and as the
// operator's profiles file holds the built-in ones: the shape and the rules that need nothing but
// the spec. The orchestrator adds the checks that need the rest of the platform (roles that name
// existing agents, the tier's allowed models and tool patterns, model connections that exist, an
// output schema that compiles); the api validates with these and documents them (OpenAPI).

/** Agent names (and built-in profile names): 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit. */
export const AgentName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');

/** A tenant agent's id: `agt_` and a UUID. Built-in agents have `builtin:<name>`. */
export const AgentId = z.string().regex(/^(agt_[0-9a-f-]{36}|builtin:[A-Za-z0-9][A-Za-z0-9._-]{0,63})$/);
export const BUILT_IN_AGENT_PREFIX = 'builtin:';

const RoleName = AgentName.regex(/^[A-Za-z0-9_-]+$/, 'a role is part of a tool name: letters, digits, "_" or "-"');

/**
 * A role an agent may delegate to: another agent, offered to the model as the tool
 * `delegate_to_<role>` whose call runs the task as a child run under that agent.
 */
export const DelegateSpec = z
  .object({
    /** The agent that does the work; names used as roles must also be valid tool-name parts. */
    role: RoleName,
    /** What the model is told the role is for (the tool's description). */
    description: z.string().min(1).max(1024),
    /** This delegation's deadline (default DELEGATION_TIMEOUT_MS). */
    timeoutMs: z.number().int().positive().optional(),
    /** Another agent that takes the task over, once, when this role's child run fails (the recovery `reassign`). */
    fallbackRole: RoleName.optional(),
    /**
     * The tenant's remote A2A agent (POST /v1/remote-agents) that does this role's tasks instead of
     * a local agent: the child run sends the task to it and answers with what it returns.
     */
    remoteAgent: RemoteAgentName.optional(),
  })
  .strict();
export type DelegateSpec = z.infer<typeof DelegateSpec>;

/**
 * A committee: several roles asked the same question in parallel (as child runs), their answers
 * resolved by a strategy; offered to the model as the tool `ask_committee_<name>`.
 */
export const CommitteeSpec = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, 'a committee name is part of a tool name: 1-40 letters, digits, "_" or "-"'),
    description: z.string().min(1).max(1024),
    roles: z.array(AgentName).min(2).max(8),
    /** `majority`, `confidence`, `arbiter` (a role decides) or `user` (the user picks; the parent waits). */
    strategy: z.enum(['majority', 'confidence', 'arbiter', 'user']).default('majority'),
    arbiter: AgentName.optional(),
    /** Numeric answers further apart than this share of the larger are a conflict (0.05: 5%). */
    tolerance: z.number().min(0).max(1).default(0.05),
    timeoutMs: z.number().int().positive().optional(),
    /** With `user`: how long the user has to decide (default 30 minutes, as approvals). */
    decisionTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(30 * 60_000),
  })
  .strict();
export type CommitteeSpec = z.infer<typeof CommitteeSpec>;

/** How a plan-and-execute agent plans (docs/plans-and-teams.md). */
export const PlanningSpec = z
  .object({
    /** The role (one of the agent's delegates) that does subtasks naming no role. */
    executor: AgentName,
    maxSubtasks: z.number().int().positive().max(100).default(20),
    maxReplans: z.number().int().nonnegative().max(10).default(3),
    maxSubtaskFailures: z.number().int().positive().max(10).default(3),
    parallelism: z.number().int().positive().max(32).default(4),
  })
  .strict();
export type PlanningSpec = z.infer<typeof PlanningSpec>;

/** Who may use an agent. Absent: every caller of the tenant (or, for a built-in agent, every tenant). */
const AgentAccess = z
  .object({
    /** Tenants that may use it (built-in agents only: a tenant agent is its own tenant's). */
    tenants: z.array(TenantId).min(1).optional(),
    /** Tiers (the token's `tier`, else DEFAULT_TIER) that may use it. */
    tiers: z.array(z.string().min(1).max(32)).min(1).optional(),
    /** End users (the token's `sub`) that may use it. */
    subjects: z.array(z.string().min(1).max(256)).min(1).max(1000).optional(),
  })
  .strict();

/** Model parameters sent with every model call of the agent. */
const ModelParameters = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().gt(0).max(1).optional(),
    maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
  })
  .strict();

/** What the agent remembers and recalls (docs/memory.md). */
const AgentMemorySettings = z
  .object({
    /** Whether a turn recalls long-term memory before the model is asked (default true). */
    recall: z.boolean().default(true),
    /** Most tokens of recalled memory put before the model (default: the orchestrator's). */
    budgetTokens: z.number().int().positive().max(100_000).optional(),
  })
  .strict();

/** The loop settings an agent may change (docs/agent-loop.md has them all). */
const AgentLoopSettings = z
  .object({
    maxTurns: z.number().int().positive().max(100).optional(),
    turnDeadlineMs: z.number().int().positive().max(3_600_000).optional(),
    toolTimeoutMs: z.number().int().positive().max(600_000).optional(),
    agentToolTimeoutMs: z.number().int().positive().max(3_600_000).optional(),
    maxToolCallsPerIteration: z.number().int().positive().max(128).optional(),
    maxToolCallsPerTurn: z.number().int().positive().max(1024).optional(),
    contextTokenLimit: z.number().int().positive().max(10_000_000).optional(),
    maxHistoryMessages: z.number().int().positive().max(10_000).optional(),
  })
  .strict();

/** A JSON Schema (an object; the orchestrator checks it compiles, draft 2020-12), at most 64 KiB as JSON. */
export const OutputSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => JSON.stringify(schema).length <= 65_536, 'an output schema is at most 64 KiB of JSON');

/** What a run may change of the agent it runs under (RunOverrides), beyond what every run may. */
const AgentOverridePolicy = z
  .object({
    /** Models a run may pick instead of the agent's `model` (its `model` and `fallbackModels` always may be picked). */
    models: z.array(z.string().min(1).max(200)).max(32).default([]),
    /** Whether a run may add instructions (default true). */
    instructions: z.boolean().default(true),
  })
  .strict();

/** Labels: up to 32 `key: value` pairs to find agents by. */
const AgentLabels = z
  .record(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9._/-]{0,62}$/, 'label keys are 1-63 lower-case letters, digits, ".", "_", "/" or "-"'),
    z.string().max(256),
  )
  .refine((labels) => Object.keys(labels).length <= 32, 'at most 32 labels');

/**
 * One agent: what a version holds. The operator's profiles file holds the same shape (with
 * `systemPrompt` for `instructions`, and `access.tenants`).
 */
export const AgentSpec = z
  .object({
    name: AgentName,
    description: z.string().max(2048).default(''),
    labels: AgentLabels.default({}),
    /** The persona: the system prompt every turn starts with. */
    instructions: z.string().min(1).max(100_000),
    /** Default: the orchestrator's LLM_MODEL. With `modelConnection`, a model that connection serves. */
    model: z.string().min(1).max(200).optional(),
    /** Tried in turn when the model fails. Default: LLM_FALLBACK_MODELS (none with a model connection). */
    fallbackModels: z.array(z.string().min(1).max(200)).max(8).optional(),
    /** The tenant's model connection (POST /v1/model-connections) the models are called through; absent: the platform's endpoint. */
    modelConnection: AgentName.optional(),
    modelParameters: ModelParameters.optional(),
    /** `native` function calling or the `text` ReAct protocol. Default: LLM_TOOL_PROTOCOL. */
    toolProtocol: z.enum(['native', 'text']).optional(),
    /** Whether the models accept OpenAI `response_format: json_schema` (default true). */
    structuredOutput: z.boolean().default(true),
    /** Tool names (and agent-tool names) the agent may use; `*` matches any run of characters. */
    tools: z.array(z.string().min(1).max(128)).max(256).default(['*']),
    delegates: z.array(DelegateSpec).max(32).default([]),
    strategy: z.enum(['react', 'plan-and-execute']).default('react'),
    planning: PlanningSpec.optional(),
    committees: z.array(CommitteeSpec).max(16).default([]),
    memory: AgentMemorySettings.optional(),
    loop: AgentLoopSettings.optional(),
    /** The run's answer must be JSON valid against it; the result carries it as `output`. */
    outputSchema: OutputSchema.optional(),
    access: AgentAccess.optional(),
    /**
     * Who may decide this agent's approval requests besides the end user whose run asked: callers
     * holding one of these tenant roles (docs/access.md). Absent: the end user or a tenant admin.
     */
    approverRoles: z.array(TenantRole).min(1).max(4).optional(),
    overrides: AgentOverridePolicy.optional(),
    /** What a message does while a run of the conversation is in flight, when it names no policy (default `enqueue`). */
    multitask: MultitaskPolicy.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const roles = spec.delegates.map((d) => d.role);
    roles.forEach((role, i) => {
      if (roles.indexOf(role) !== i)
        ctx.addIssue({ code: 'custom', path: ['delegates', i, 'role'], message: `role '${role}' is listed twice` });
    });
    spec.delegates.forEach(({ role, fallbackRole }, i) => {
      if (fallbackRole === undefined) return;
      const path = ['delegates', i, 'fallbackRole'];
      if (fallbackRole === role)
        ctx.addIssue({ code: 'custom', path, message: 'the fallback role must differ from the role it stands in for' });
      if (fallbackRole === spec.name)
        ctx.addIssue({ code: 'custom', path, message: 'an agent cannot reassign a task to itself (that would loop)' });
    });
    spec.committees.forEach((committee, i) => {
      if (spec.committees.findIndex((c) => c.name === committee.name) !== i)
        ctx.addIssue({
          code: 'custom',
          path: ['committees', i, 'name'],
          message: `committee '${committee.name}' is defined twice`,
        });
      if (committee.strategy === 'arbiter' && !committee.arbiter)
        ctx.addIssue({
          code: 'custom',
          path: ['committees', i, 'arbiter'],
          message: 'the arbiter strategy needs an "arbiter" role',
        });
    });
    if (spec.strategy === 'plan-and-execute' && !spec.planning)
      ctx.addIssue({
        code: 'custom',
        path: ['planning'],
        message: 'a plan-and-execute agent needs "planning" with its executor role',
      });
    if (spec.planning && !roles.includes(spec.planning.executor))
      ctx.addIssue({
        code: 'custom',
        path: ['planning', 'executor'],
        message: `the executor must be one of the agent's delegates (${roles.join(', ') || 'none'})`,
      });
  });
export type AgentSpec = z.infer<typeof AgentSpec>;

/**
 * What one run may change of its agent (the message's `overrides`), within what the agent allows:
 * recorded on the run.
 */
export const RunOverrides = z
  .object({
    /** One of the agent's `model`, `fallbackModels` or `overrides.models`. */
    model: z.string().min(1).max(200).optional(),
    /** Appended to the agent's instructions for this run (unless the agent's `overrides.instructions` is false). */
    instructions: z.string().min(1).max(10_000).optional(),
    /** Tool names or patterns: the run may use a tool only if both the agent and these allow it. */
    tools: z.array(z.string().min(1).max(128)).max(256).optional(),
    /** At most the agent's own `maxTurns`. */
    maxTurns: z.number().int().positive().max(100).optional(),
  })
  .strict();
export type RunOverrides = z.infer<typeof RunOverrides>;

/**
 * Where the orchestrators announce writes to a tenant's agents and conversation pins (after the
 * commit): `<prefix>.<compositeKey(tenant)>`; every replica forgets that tenant's cached entries.
 */
export const AGENTS_CHANGED_SUBJECT_PREFIX = 'platform.orchestrator.agents.changed';
