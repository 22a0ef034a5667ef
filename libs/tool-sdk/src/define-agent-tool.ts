import { TASK_INSTRUCTION_PARAMETER, type SideEffect, type ToolName } from '@platform/contracts';
import type { z } from 'zod';
import { agentInputJsonSchema, agentSchemaVersion, agentToolDescription, type AgentField } from './agent-schema.js';
import { readApprovalReply as defaultReplyReader, type ApprovalReply } from './approval-reply.js';
import type { ToolContext } from './define-tool.js';
import { declaredCredentialServices } from './tool-credentials.js';

/** What an agent's `run` knows about the step it serves: a tool's context plus the model's extra instruction. */
export interface AgentToolContext extends ToolContext {
  /** The model's `task_instruction` (context that fits no field), kept across steps; `undefined` when none was given. */
  readonly taskInstruction: string | undefined;
}

/** One piece of information the agent needs. The model fills it when it can; the agent asks the user otherwise. */
export interface AgentFieldSpec<S extends z.ZodType = z.ZodType> {
  /** Validates (and may transform) the value; published to the model as the parameter's JSON Schema. */
  schema: S;
  /** Shown to the model and, when the value is missing, to the user. */
  description: string;
  /**
   * Whether the agent must have a value before it runs. Default: `true`, unless a `default` is
   * given or the schema accepts `undefined` (`.optional()`, zod `.default()`).
   */
  required?: boolean;
  /** Used when no value was given; makes the field optional. Checked against the schema at definition time. */
  default?: z.input<S>;
  /** A rule beyond the schema: return a human-readable error, or `undefined` when the value is fine. */
  validate?: (value: z.output<S>) => string | undefined;
  /** The rule in words for the model, appended to the description as ` (constraint)`, e.g. `must contain @`. */
  constraint?: string;
}

/** What the user is asked to confirm; the SDK completes it into a full `ApprovalRequest`. */
export interface AgentApproval {
  /** One line, e.g. "Send email to team@example.com". */
  actionSummary: string;
  /** What the user sees; default: the collected fields. */
  details?: Record<string, unknown>;
  /** Whether the user may change fields instead of approving as is (`edit`). Default `true`. */
  allowModification?: boolean;
  /** After this the request expires and the action is not taken. Default: the agent's `approvalTimeoutMinutes`. */
  timeoutMinutes?: number;
}

type FieldValues<T extends Record<string, z.ZodType>> = { [K in keyof T]: z.output<T[K]> };

export interface AgentToolSpec<T extends Record<string, z.ZodType>> {
  name: ToolName;
  /** Shown to the model: what the agent does and when to use it. */
  description: string;
  /** The information the agent collects, by parameter name. The model sees them as the tool's parameters. */
  fields: { [K in keyof T]: AgentFieldSpec<T[K]> };
  /**
   * `false` (default): runs as soon as the fields are complete. `true`: always asks the user first.
   * A function: decides per call; `undefined` means no approval is needed this time.
   */
  approval?: boolean | ((fields: FieldValues<T>) => AgentApproval | undefined | Promise<AgentApproval | undefined>);
  /** Reads a free-text answer to an approval request; `undefined` asks again. Default: `readApprovalReply`. */
  readApprovalReply?: (text: string) => ApprovalReply | undefined;
  /** Offer the agent to the model (default `true`); `false` keeps it for explicit workflows (`platform.expose`). */
  exposeToModel?: boolean;
  /** Longest one step may run, `run` included. Default 120 s (the orchestrator's agent-tool timeout). */
  timeoutMs?: number;
  /** Default expiry of approval requests. Default 30 minutes. */
  approvalTimeoutMinutes?: number;
  /** As for tools. Default `external` when the agent may ask for approval, else `none`. */
  sideEffect?: SideEffect;
  /** The agent's own version (semver); resolves conflicts when two runners offer the same name. */
  version?: string;
  /** As for tools: the credential services `run` reads or saves through `context.credentials`. */
  credentials?: readonly string[];
  /** The work, once every field is valid and the user approved (when asked). Throw `ToolFailure` for outcomes the model should hear. */
  run: (fields: FieldValues<T>, context: AgentToolContext) => Promise<unknown>;
}

/** An agent with its defaults applied, ready to serve (`serveRunner({ agents })`). */
export interface AgentToolDefinition {
  readonly kind: 'agent';
  readonly name: ToolName;
  readonly description: string;
  readonly fields: readonly AgentField[];
  readonly approval:
    boolean | ((fields: Record<string, unknown>) => AgentApproval | undefined | Promise<AgentApproval | undefined>);
  readonly readApprovalReply: (text: string) => ApprovalReply | undefined;
  readonly exposeToModel: boolean;
  readonly timeoutMs: number;
  readonly approvalTimeoutMinutes: number;
  readonly sideEffect: SideEffect;
  readonly version: string;
  readonly credentials: readonly string[];
  /** The model-facing JSON Schema (no field required, constraints in descriptions, `task_instruction`). */
  readonly inputJsonSchema: Record<string, unknown>;
  /** The model-facing description (with the approval note when approval may be needed). */
  readonly modelDescription: string;
  /** Changes whenever a field is added, removed, retyped or changes required/default. */
  readonly schemaVersion: string;
  readonly run: (fields: Record<string, unknown>, context: AgentToolContext) => Promise<unknown>;
}

const AGENT_DEFAULTS = {
  timeoutMs: 120_000,
  approvalTimeoutMinutes: 30,
  version: '1.0.0',
  exposeToModel: true,
} as const;

const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function compileField(agent: string, name: string, spec: AgentFieldSpec): AgentField {
  const where = `field '${name}' of agent '${agent}'`;
  if (!FIELD_NAME.test(name))
    throw new Error(`${where}: the name must be 1-64 letters, digits or '_', not starting with a digit`);
  if (name === TASK_INSTRUCTION_PARAMETER)
    throw new Error(`${where}: '${TASK_INSTRUCTION_PARAMETER}' is added by the SDK`);
  if (!spec.description.trim()) throw new Error(`${where} needs a description: the model and the user read it`);
  const hasDefault = spec.default !== undefined;
  const acceptsUndefined = spec.schema.safeParse(undefined).success;
  const required = spec.required ?? !(hasDefault || acceptsUndefined);
  if (required && hasDefault) throw new Error(`${where} has a default, so it cannot be required`);
  if (!required && !hasDefault && !acceptsUndefined) {
    throw new Error(`${where} is optional without a default, so its schema must accept undefined (use .optional())`);
  }
  const validate = spec.validate;
  if (hasDefault) {
    const parsed = spec.schema.safeParse(spec.default);
    const problem = parsed.success ? validate?.(parsed.data) : parsed.error.issues[0]?.message;
    if (problem !== undefined) throw new Error(`${where}: the default is not a valid value (${problem})`);
  }
  return {
    name,
    schema: spec.schema,
    description: spec.description,
    required,
    hasDefault,
    default: spec.default,
    validate,
    constraint: spec.constraint?.trim() || undefined,
  };
}

/**
 * Declares an agent-tool: a tool that collects its fields over several turns (asking the user for
 * what is missing or invalid), may ask the user to approve the action, and then runs it. Served
 * by `serveRunner({ agents })` as an endpoint of kind `agent` (docs/tool-protocol.md, "Agent-tools").
 */
export function defineAgentTool<T extends Record<string, z.ZodType>>(spec: AgentToolSpec<T>): AgentToolDefinition {
  if (!AGENT_NAME.test(spec.name))
    throw new Error(`agent name '${spec.name}' must be 1-64 letters, digits, '_' or '-'`);
  if (!spec.description.trim())
    throw new Error(`agent '${spec.name}' needs a description: the model chooses tools by it`);
  const fields = Object.entries(spec.fields as Record<string, AgentFieldSpec>).map(([name, field]) =>
    compileField(spec.name, name, field),
  );
  const approval = (spec.approval ?? false) as AgentToolDefinition['approval'];
  const approvalTimeoutMinutes = spec.approvalTimeoutMinutes ?? AGENT_DEFAULTS.approvalTimeoutMinutes;
  if (!Number.isInteger(approvalTimeoutMinutes) || approvalTimeoutMinutes <= 0)
    throw new Error(`agent '${spec.name}': approvalTimeoutMinutes must be a positive integer`);
  const mayNeedApproval = approval !== false;
  return {
    kind: 'agent',
    name: spec.name,
    description: spec.description,
    fields,
    approval,
    readApprovalReply: spec.readApprovalReply ?? defaultReplyReader,
    exposeToModel: spec.exposeToModel ?? AGENT_DEFAULTS.exposeToModel,
    timeoutMs: spec.timeoutMs ?? AGENT_DEFAULTS.timeoutMs,
    approvalTimeoutMinutes,
    sideEffect: spec.sideEffect ?? (mayNeedApproval ? 'external' : 'none'),
    version: spec.version ?? AGENT_DEFAULTS.version,
    credentials: declaredCredentialServices(`agent '${spec.name}'`, spec.credentials),
    inputJsonSchema: agentInputJsonSchema(fields),
    modelDescription: agentToolDescription(spec.description, mayNeedApproval),
    schemaVersion: agentSchemaVersion(fields),
    run: spec.run as AgentToolDefinition['run'],
  };
}
