import { z } from 'zod';
import { CredentialService, parseCredentialServices } from './credentials.js';
import { ConversationId, RunId, TenantId, ToolCallId, ToolName } from './ids.js';
import { toolErrorCodes } from './tool-error-codes.js';

/**
 * The tool-runner wire protocol, version 1 (specified for other languages in docs/tool-protocol.md).
 * A runner is a NATS micro service; each tool is one endpoint whose subject is `toolSubject(name)`,
 * in the queue group `TOOL_QUEUE_GROUP`, so replicas share the load.
 */
export const TOOL_PROTOCOL_VERSION = '1';
export const TOOL_SUBJECT_PREFIX = 'platform.tool';
export const TOOL_QUEUE_GROUP = 'platform-tool-runners';

/** The subject a tool's endpoint listens on. */
export function toolSubject(toolName: ToolName): string {
  return `${TOOL_SUBJECT_PREFIX}.${toolName}`;
}

/** NATS headers of a tool call request. Trace context travels in the W3C `traceparent`/`tracestate` headers. */
export const ToolCallHeader = {
  callId: 'Platform-Call-Id',
  tenant: 'Platform-Tenant',
  conversation: 'Platform-Conversation',
  run: 'Platform-Run',
  /** Absolute deadline, epoch milliseconds. */
  deadline: 'Platform-Deadline',
  protocol: 'Platform-Protocol',
  /**
   * Only on calls of tools that declare `platform.credentials`: the short-lived signed grant that
   * lets the runner read and save those credentials of this tenant for this call (docs/credentials.md).
   * A bearer token: runners never log it.
   */
  credentialGrant: 'Platform-Credential-Grant',
} as const;

/** Who a call is for and how long it may take; read from the request headers. */
export const ToolCallMeta = z.object({
  callId: ToolCallId,
  tenantId: TenantId,
  conversationId: ConversationId,
  runId: RunId.optional(),
  deadlineAt: z.coerce.number().int().positive(),
});
export type ToolCallMeta = z.infer<typeof ToolCallMeta>;

/** Request body: the arguments object the model produced, already parsed from JSON. */
export const ToolCallRequest = z.object({
  arguments: z.record(z.string(), z.unknown()),
});
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;

/** Stable error codes in tool responses (`toolErrorCatalogue` says what each means). */
export const ToolErrorCode = z.enum(toolErrorCodes);
export type ToolErrorCode = z.infer<typeof ToolErrorCode>;

export const ToolIssue = z.object({ path: z.string(), message: z.string() });
export type ToolIssue = z.infer<typeof ToolIssue>;

const ToolError = z.object({
  code: ToolErrorCode,
  message: z.string(),
  issues: z.array(ToolIssue).optional(),
});
type ToolError = z.infer<typeof ToolError>;

const ToolSuccessResponse = z.object({
  status: z.literal('success'),
  output: z.unknown(),
  /** The runner cut the output to its size limit. */
  truncated: z.boolean().optional(),
  durationMs: z.number().nonnegative().optional(),
});
type ToolSuccessResponse = z.infer<typeof ToolSuccessResponse>;

const ToolFailureResponse = z.object({
  status: z.enum(['invalid', 'failed', 'timeout', 'busy']),
  error: ToolError,
  durationMs: z.number().nonnegative().optional(),
});
type ToolFailureResponse = z.infer<typeof ToolFailureResponse>;

export const ToolCallResponse = z.discriminatedUnion('status', [ToolSuccessResponse, ToolFailureResponse]);
export type ToolCallResponse = z.infer<typeof ToolCallResponse>;

/** Side-effect class: decides whether a call may be retried after a transport failure. */
export const SideEffect = z.enum(['none', 'idempotent', 'external']);
export type SideEffect = z.infer<typeof SideEffect>;

/** Keys of the endpoint metadata a runner publishes through `$SRV.INFO` (all values are strings). */
export const ToolMetadataKey = {
  protocol: 'platform.protocol',
  kind: 'platform.kind',
  description: 'platform.description',
  inputSchema: 'platform.input_schema',
  timeoutMs: 'platform.timeout_ms',
  requiresApproval: 'platform.requires_approval',
  sideEffect: 'platform.side_effect',
  version: 'platform.version',
  schemaHash: 'platform.schema_hash',
  /** Optional: `"true"` when the runner answers duplicate call ids from a result store (effectively-once). */
  dedupe: 'platform.dedupe',
  /** Agent-tools only: the version of the agent's field schema (see agent-protocol.ts). */
  agentSchemaVersion: 'platform.agent_schema_version',
  /** Optional: `"false"` keeps a tool or agent off the model's tool list (for explicit workflows only). */
  expose: 'platform.expose',
  /** Optional: the credential services the tool needs, comma-separated (`google,github`); its calls then carry a grant. */
  credentials: 'platform.credentials',
  /**
   * Optional: `"true"` declares the tool a custom executor of trigger tasks (docs/triggers.md): only
   * a tool its runner declares so may be named as a task's `executor`.
   */
  executor: 'platform.executor',
} as const;

/** NATS headers a runner may set on its reply. */
export const ToolReplyHeader = {
  /** `"true"` on a response replayed from the result store instead of run again. */
  replayed: 'Platform-Replayed',
} as const;

/** What the catalog knows about a tool, parsed from discovered endpoint metadata. */
export const ToolDescriptor = z.object({
  name: ToolName,
  kind: z.enum(['tool', 'agent']),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive(),
  requiresApproval: z.boolean(),
  sideEffect: SideEffect,
  version: z.string(),
  schemaHash: z.string(),
  /** Agent-tools: the field schema version; pool entries saved under another one are discarded. */
  agentSchemaVersion: z.string().min(1).optional(),
  /** Credential services the tool declared; each call gets a grant for exactly these. */
  credentials: z.array(CredentialService).optional(),
  /** The runner declared it a custom executor of trigger tasks (`platform.executor: "true"`). */
  executor: z.literal(true).optional(),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

const booleanString = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Parses an endpoint's metadata; throws a ZodError naming the bad key when a runner publishes nonsense. */
export const ToolEndpointMetadata = z.object({
  [ToolMetadataKey.protocol]: z.literal(TOOL_PROTOCOL_VERSION),
  [ToolMetadataKey.kind]: z.enum(['tool', 'agent']),
  [ToolMetadataKey.description]: z.string(),
  [ToolMetadataKey.inputSchema]: z.string().transform((text, ctx) => {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON Schema object encoded as JSON' });
    return z.NEVER;
  }),
  [ToolMetadataKey.timeoutMs]: z.coerce.number().int().positive(),
  [ToolMetadataKey.requiresApproval]: booleanString,
  [ToolMetadataKey.sideEffect]: SideEffect,
  [ToolMetadataKey.version]: z.string().min(1),
  [ToolMetadataKey.schemaHash]: z.string().min(1),
  [ToolMetadataKey.agentSchemaVersion]: z.string().min(1).optional(),
  [ToolMetadataKey.credentials]: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseCredentialServices(value);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'must be comma-separated credential service names (lowercase letters, digits, ".", "_", "-")',
        });
        return z.NEVER;
      }
    }),
  [ToolMetadataKey.executor]: booleanString.optional(),
});
export type ToolEndpointMetadata = z.input<typeof ToolEndpointMetadata>;

/** Builds a descriptor from an endpoint name and its published metadata. */
export function parseToolDescriptor(name: string, metadata: Record<string, string> | undefined): ToolDescriptor {
  const m = ToolEndpointMetadata.parse(metadata ?? {});
  return ToolDescriptor.parse({
    name,
    kind: m[ToolMetadataKey.kind],
    description: m[ToolMetadataKey.description],
    inputSchema: m[ToolMetadataKey.inputSchema],
    timeoutMs: m[ToolMetadataKey.timeoutMs],
    requiresApproval: m[ToolMetadataKey.requiresApproval],
    sideEffect: m[ToolMetadataKey.sideEffect],
    version: m[ToolMetadataKey.version],
    schemaHash: m[ToolMetadataKey.schemaHash],
    ...(m[ToolMetadataKey.agentSchemaVersion] ? { agentSchemaVersion: m[ToolMetadataKey.agentSchemaVersion] } : {}),
    ...(m[ToolMetadataKey.credentials].length > 0 ? { credentials: m[ToolMetadataKey.credentials] } : {}),
    ...(m[ToolMetadataKey.executor] ? { executor: true } : {}),
  });
}

/** Renders a descriptor as endpoint metadata (the inverse of `parseToolDescriptor`). */
export function toolEndpointMetadata(d: Omit<ToolDescriptor, 'name'>): Record<string, string> {
  return {
    [ToolMetadataKey.protocol]: TOOL_PROTOCOL_VERSION,
    [ToolMetadataKey.kind]: d.kind,
    [ToolMetadataKey.description]: d.description,
    [ToolMetadataKey.inputSchema]: JSON.stringify(d.inputSchema),
    [ToolMetadataKey.timeoutMs]: String(d.timeoutMs),
    [ToolMetadataKey.requiresApproval]: String(d.requiresApproval),
    [ToolMetadataKey.sideEffect]: d.sideEffect,
    [ToolMetadataKey.version]: d.version,
    [ToolMetadataKey.schemaHash]: d.schemaHash,
    ...(d.agentSchemaVersion ? { [ToolMetadataKey.agentSchemaVersion]: d.agentSchemaVersion } : {}),
    ...(d.credentials?.length ? { [ToolMetadataKey.credentials]: d.credentials.join(',') } : {}),
    ...(d.executor ? { [ToolMetadataKey.executor]: 'true' } : {}),
  };
}
