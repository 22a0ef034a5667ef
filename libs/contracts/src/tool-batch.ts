import { z } from 'zod';
import { ConversationId, RunId, TenantId, ToolCallId } from './ids.js';
import { ToolCallResponse, toolSubject } from './tool-protocol.js';
import type { ToolName } from './ids.js';

/**
 * Batched calls (tool protocol v1, optional for runners): many calls of one tool in one NATS
 * request, for callers that start many calls at the same instant (the trigger service's custom
 * executors at a burst of coinciding fires). Each call in a batch is handled
 * exactly as if it had come alone — its own call id, deadline, argument validation, dedupe and
 * handler run — and gets its own response; only the message, its headers and its trace span are
 * shared. A runner that does not serve the batch subject simply has no responder there, and the
 * caller sends the calls one by one (docs/tool-protocol.md, "Batched calls").
 *
 * Request headers: `Platform-Protocol`, trace context. Body: `ToolBatchRequest` (each call names
 * its tenant, as a single call's `Platform-Tenant` header does). Reply body: `ToolBatchReply`,
 * one result per call in the request's order.
 */
export const TOOL_BATCH_SUBJECT_SUFFIX = 'batch';

/** Calls one batch may carry; a larger batch is refused whole as `invalid`. */
const TOOL_BATCH_MAX_CALLS = 256;

/** The subject a tool's batch endpoint listens on (in the same queue group as its single calls). */
export function toolBatchSubject(toolName: ToolName): string {
  return `${toolSubject(toolName)}.${TOOL_BATCH_SUBJECT_SUFFIX}`;
}

/** One call of a batch: what the single-call headers and body carry, as fields. */
export const ToolBatchCall = z.object({
  callId: ToolCallId,
  tenantId: TenantId,
  conversationId: ConversationId,
  runId: RunId.optional(),
  /** Absolute deadline, epoch milliseconds. */
  deadlineAt: z.number().int().positive(),
  arguments: z.record(z.string(), z.unknown()),
  /** The call's credential grant, for tools that declare credentials (a bearer token: never logged). */
  credentialGrant: z.string().min(1).optional(),
});
export type ToolBatchCall = z.infer<typeof ToolBatchCall>;

export const ToolBatchRequest = z.object({
  calls: z.array(ToolBatchCall).min(1).max(TOOL_BATCH_MAX_CALLS),
});
export type ToolBatchRequest = z.infer<typeof ToolBatchRequest>;

/** One call's answer: its response, and whether it was replayed from the result store. */
export const ToolBatchResult = z.object({
  response: ToolCallResponse,
  replayed: z.boolean().optional(),
});
export type ToolBatchResult = z.infer<typeof ToolBatchResult>;

/** The reply to a batch; `results[i]` answers `calls[i]`. A batch refused whole carries one `invalid` response in `refused` instead. */
export const ToolBatchReply = z.union([
  z.object({ results: z.array(ToolBatchResult) }),
  z.object({ refused: ToolCallResponse }),
]);
export type ToolBatchReply = z.infer<typeof ToolBatchReply>;
