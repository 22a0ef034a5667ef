import type { SideEffect, ToolName } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { z } from 'zod';
import { declaredCredentialServices, type ToolCredentials } from './tool-credentials.js';

/** What a tool handler knows about the call it serves. */
export interface ToolContext {
  readonly tenantId: string;
  readonly conversationId: string;
  /** Stable across retries and resumes: dedupe side effects on it. */
  readonly callId: string;
  readonly runId: string | undefined;
  /** Absolute deadline (epoch ms): the smaller of the caller's deadline and the tool's timeout. */
  readonly deadlineAt: number;
  /** Aborts at the deadline, or when the runner shuts down past its grace period. */
  readonly signal: AbortSignal;
  /** A logger bound to this call (tool, call id, tenant). */
  readonly logger: Logger;
  /**
   * The tenant's credentials of the services the tool declared (`credentials: [...]`), read and
   * saved through the grant that came with this call. `get` answers `{ connected: false }` when
   * the user has not connected the account.
   */
  readonly credentials: ToolCredentials;
}

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodType | undefined = undefined> {
  name: ToolName;
  /** Shown to the model: say what the tool does and when to use it. */
  description: string;
  /** Validated on the runner before the handler runs; published as JSON Schema for discovery. */
  input: I;
  /**
   * Publish this JSON Schema instead of the one generated from `input`, for tools whose schema
   * comes from elsewhere (e.g. an MCP server). `input` still validates; keep the two consistent.
   */
  inputJsonSchema?: Record<string, unknown>;
  /** When given, the handler's result is checked against it (a mismatch is a `failed` result). */
  output?: O;
  /** Longest a call may run; the caller's turn deadline may cut it shorter. Default 30 s. */
  timeoutMs?: number;
  /** The platform asks the user before running it. Default false. */
  requiresApproval?: boolean;
  /**
   * `none`: reads only; `idempotent`: repeating it is harmless; `external`: a side effect that must
   * happen at most once per call id. Decides whether callers may retry after transport failures.
   */
  sideEffect?: SideEffect;
  /** The tool's own version (semver); resolves conflicts when two runners offer the same name. */
  version?: string;
  /**
   * Third-party services whose credentials the tool reads or saves (e.g. `['google']`). The
   * platform grants each call access to exactly these, for the calling tenant only.
   */
  credentials?: readonly string[];
  /**
   * Declares the tool a custom executor of trigger tasks (published as `platform.executor: "true"`):
   * only a declared executor may be named as a task's `executor` (docs/triggers.md). Default false.
   */
  executor?: boolean;
  handler: (input: z.output<I>, context: ToolContext) => Promise<O extends z.ZodType ? z.input<O> : unknown>;
}

/** A tool with its defaults applied, ready to serve. */
export interface ToolDefinition {
  readonly name: ToolName;
  readonly description: string;
  readonly input: z.ZodObject;
  /** The published input schema when given explicitly; otherwise it is generated from `input`. */
  readonly inputJsonSchema?: Record<string, unknown> | undefined;
  readonly output: z.ZodType | undefined;
  readonly timeoutMs: number;
  readonly requiresApproval: boolean;
  readonly sideEffect: SideEffect;
  readonly version: string;
  readonly credentials: readonly string[];
  readonly executor: boolean;
  readonly handler: (input: unknown, context: ToolContext) => Promise<unknown>;
}

const TOOL_DEFAULTS = {
  timeoutMs: 30_000,
  requiresApproval: false,
  sideEffect: 'none',
  version: '1.0.0',
  executor: false,
} as const satisfies Partial<ToolSpec<z.ZodObject>>;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Declares a tool. Served by `serveRunner`; the model sees its name, description and input schema. */
export function defineTool<I extends z.ZodObject, O extends z.ZodType | undefined = undefined>(
  spec: ToolSpec<I, O>,
): ToolDefinition {
  if (!TOOL_NAME.test(spec.name)) throw new Error(`tool name '${spec.name}' must be 1-64 letters, digits, '_' or '-'`);
  if (!spec.description.trim())
    throw new Error(`tool '${spec.name}' needs a description: the model chooses tools by it`);
  const credentials = declaredCredentialServices(`tool '${spec.name}'`, spec.credentials);
  return {
    name: spec.name,
    description: spec.description,
    input: spec.input,
    ...(spec.inputJsonSchema ? { inputJsonSchema: spec.inputJsonSchema } : {}),
    output: spec.output,
    timeoutMs: spec.timeoutMs ?? TOOL_DEFAULTS.timeoutMs,
    requiresApproval: spec.requiresApproval ?? TOOL_DEFAULTS.requiresApproval,
    sideEffect: spec.sideEffect ?? TOOL_DEFAULTS.sideEffect,
    version: spec.version ?? TOOL_DEFAULTS.version,
    credentials,
    executor: spec.executor ?? TOOL_DEFAULTS.executor,
    handler: spec.handler as (input: unknown, context: ToolContext) => Promise<unknown>,
  };
}
