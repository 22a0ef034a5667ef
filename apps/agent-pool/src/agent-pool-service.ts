import type { ServerUnaryCall } from '@grpc/grpc-js';
import { ApprovalDecision, ConversationId, RunId, ToolCallId, ToolName } from '@platform/contracts';
import type { agentPoolV1 } from '@platform/proto';
import { errors, parseOrReject, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import { z } from 'zod';
import type { AgentPool } from './agent-pool.js';
import { UUID_PATTERN, type EntryRow, type SourceKind } from './entry-store.js';
import type { UserDecisionInput } from './user-decision.js';
import { ErrorCodes } from './error-codes.js';

/** What the service accepts at most, compiled from the environment at boot (server.ts). */
export interface AgentPoolServiceLimits {
  /** Largest fields_json / changes_json / message / arguments_json / user decision text, in bytes. */
  maxInputBytes: number;
}

const TaskId = z.string().min(1).max(256);
const EntryId = z.string().regex(UUID_PATTERN, 'must be an entry id as the pool returned it');
const ApprovalId = z.string().regex(UUID_PATTERN, 'must be an approval id as the pool returned it');

/** A JSON object from a `*_json` field; empty means `{}`. */
function jsonObject(
  text: string,
  field: string,
  code: string,
  limits: AgentPoolServiceLimits,
): Record<string, unknown> {
  if (text === '') return {};
  if (Buffer.byteLength(text, 'utf8') > limits.maxInputBytes)
    throw errors.invalidArgument(code, `${field} is larger than ${limits.maxInputBytes} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.invalidArgument(code, `${field} is not valid JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw errors.invalidArgument(code, `${field} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

function text(value: string, field: string, limits: AgentPoolServiceLimits): string {
  if (Buffer.byteLength(value, 'utf8') > limits.maxInputBytes)
    throw errors.invalidArgument(ErrorCodes.INPUT_TOO_LARGE, `${field} is larger than ${limits.maxInputBytes} bytes`);
  return value;
}

function sourceOf(source: agentPoolV1.AgentSource | undefined): { kind: SourceKind; taskId: string | undefined } {
  const kind = source?.kind || 'user';
  if (kind !== 'user' && kind !== 'trigger')
    throw errors.invalidArgument(ErrorCodes.INVALID_SOURCE, `source.kind must be "user" or "trigger", not "${kind}"`);
  const taskId = source?.taskId
    ? parseOrReject(TaskId, source.taskId, ErrorCodes.INVALID_SOURCE, 'source.task_id')
    : undefined;
  if (kind === 'trigger' && !taskId)
    throw errors.invalidArgument(ErrorCodes.INVALID_SOURCE, 'source.task_id is required when source.kind is "trigger"');
  if (kind === 'user' && taskId)
    throw errors.invalidArgument(ErrorCodes.INVALID_SOURCE, 'source.task_id is only for source.kind "trigger"');
  return { kind, taskId };
}

/** A decision the platform asks the user for itself (StartAgent's `user_decision`), checked at the edge. */
function userDecisionOf(
  decision: agentPoolV1.UserDecision | undefined,
  approvalGate: boolean,
  limits: AgentPoolServiceLimits,
): UserDecisionInput | undefined {
  if (!decision) return undefined;
  if (approvalGate)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_USER_DECISION,
      'a call is either approval_gate or user_decision, not both',
    );
  if (!decision.actionSummary.trim())
    throw errors.invalidArgument(ErrorCodes.INVALID_USER_DECISION, 'user_decision.action_summary must not be empty');
  if (decision.expiresInMs < 1)
    throw errors.invalidArgument(ErrorCodes.INVALID_USER_DECISION, 'user_decision.expires_in_ms must be at least 1');
  return {
    actionSummary: text(decision.actionSummary, 'user_decision.action_summary', limits),
    details: jsonObject(decision.detailsJson, 'user_decision.details_json', ErrorCodes.INVALID_USER_DECISION, limits),
    prompt: text(decision.prompt, 'user_decision.prompt', limits),
    expiresInMs: decision.expiresInMs,
  };
}

/** The caller's deadline in epoch ms (Infinity when it set none). */
function deadlineOf(call: ServerUnaryCall<unknown, unknown>): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** An entry as the API shows it. */
function toProtoEntry(row: EntryRow): agentPoolV1.AgentEntry {
  const finishedWithResult = row.status === 'completed' || row.status === 'cancelled';
  return {
    entryId: row.entry_id,
    tenantId: row.tenant_id,
    conversationId: row.conversation_id,
    runId: row.run_id ?? '',
    callId: row.call_id,
    agentName: row.agent_name,
    status: row.status,
    pausedFrom: row.paused_from ?? '',
    schemaVersion: row.schema_version,
    collectedJson: json(row.collected),
    prompt: row.prompt ?? '',
    missing: (row.missing ?? []).map((m) => ({ name: m.name, description: m.description, reason: m.reason ?? '' })),
    approval:
      row.approval && row.approval_id
        ? {
            approvalId: row.approval_id,
            agentName: row.approval.agentName,
            actionSummary: row.approval.actionSummary,
            detailsJson: json(row.approval.details),
            options: row.approval.options,
            timeoutMinutes: row.approval.timeoutMinutes,
            allowModification: row.approval.allowModification,
          }
        : undefined,
    source: { kind: row.source_kind, taskId: row.source_task_id ?? '' },
    resultJson: finishedWithResult || row.result !== null ? json(row.result) : '',
    errorCode: row.error_code ?? '',
    errorMessage: row.error_message ?? '',
    step: row.step,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at ?? undefined,
    kind: row.kind,
    ...(row.decided_by ? { decidedBy: row.decided_by } : {}),
  };
}

/** The AgentPoolService gRPC implementation: validates at the edge, then runs the pool's logic. */
export function agentPoolServiceImplementation(
  pool: AgentPool,
  limits: AgentPoolServiceLimits,
  logger: Logger,
): agentPoolV1.AgentPoolServiceServer {
  /** A call on one entry of the tenant (get, pause, resume, cancel): its entry id checked, the entry it leaves answered. */
  const entryHandler = (
    method: string,
    act: (tenantId: string, entryId: string) => Promise<EntryRow>,
  ): ReturnType<typeof unaryHandler<{ tenantId: string; entryId: string }, { entry: agentPoolV1.AgentEntry }>> =>
    unaryHandler<{ tenantId: string; entryId: string }, { entry: agentPoolV1.AgentEntry }>(
      logger,
      method,
      async (request) => ({
        entry: toProtoEntry(
          await act(
            tenantOf(request),
            parseOrReject(EntryId, request.entryId, ErrorCodes.INVALID_ENTRY_ID, 'entry_id'),
          ),
        ),
      }),
    );
  return {
    startAgent: unaryHandler<agentPoolV1.StartAgentRequest, agentPoolV1.StartAgentResponse>(
      logger,
      'StartAgent',
      async (request, call) => {
        const { entry, duplicate } = await pool.start({
          tenantId: tenantOf(request),
          conversationId: parseOrReject(
            ConversationId,
            request.conversationId,
            ErrorCodes.INVALID_CONVERSATION_ID,
            'conversation_id',
          ),
          runId: request.runId ? parseOrReject(RunId, request.runId, ErrorCodes.INVALID_RUN_ID, 'run_id') : undefined,
          callId: parseOrReject(ToolCallId, request.callId, ErrorCodes.INVALID_CALL_ID, 'call_id'),
          agentName: parseOrReject(ToolName, request.agentName, ErrorCodes.INVALID_AGENT_NAME, 'agent_name'),
          arguments: jsonObject(request.argumentsJson, 'arguments_json', ErrorCodes.INVALID_ARGUMENTS_JSON, limits),
          source: sourceOf(request.source),
          approvalGate: request.approvalGate,
          deadlineAt: deadlineOf(call),
          credentialGrant: request.credentialGrant || undefined,
          userDecision: userDecisionOf(request.userDecision, request.approvalGate, limits),
        });
        return { entry: toProtoEntry(entry), duplicate };
      },
    ),

    continueAgent: unaryHandler<agentPoolV1.ContinueAgentRequest, agentPoolV1.ContinueAgentResponse>(
      logger,
      'ContinueAgent',
      async (request, call) => {
        const entry = await pool.continue({
          tenantId: tenantOf(request),
          entryId: parseOrReject(EntryId, request.entryId, ErrorCodes.INVALID_ENTRY_ID, 'entry_id'),
          fields: jsonObject(request.fieldsJson, 'fields_json', ErrorCodes.INVALID_FIELDS_JSON, limits),
          message: text(request.message, 'message', limits),
          deadlineAt: deadlineOf(call),
          credentialGrant: request.credentialGrant || undefined,
        });
        return { entry: toProtoEntry(entry) };
      },
    ),

    resolveApproval: unaryHandler<agentPoolV1.ResolveApprovalRequest, agentPoolV1.ResolveApprovalResponse>(
      logger,
      'ResolveApproval',
      async (request, call) => {
        const tenantId = tenantOf(request);
        const approvalId = parseOrReject(ApprovalId, request.approvalId, ErrorCodes.INVALID_APPROVAL_ID, 'approval_id');
        const decision = request.decision
          ? parseOrReject(ApprovalDecision, request.decision, ErrorCodes.INVALID_DECISION, 'decision')
          : undefined;
        const changes = request.changesJson
          ? jsonObject(request.changesJson, 'changes_json', ErrorCodes.INVALID_CHANGES_JSON, limits)
          : undefined;
        const reply = request.reply ? text(request.reply, 'reply', limits) : undefined;
        if (!decision && !reply)
          throw errors.invalidArgument(
            ErrorCodes.DECISION_REQUIRED,
            "give a decision, or the user's reply for the agent to read",
          );
        if (changes && decision !== 'edit')
          throw errors.invalidArgument(
            ErrorCodes.CHANGES_NEED_EDIT,
            'changes_json is only accepted with decision "edit"',
          );
        const entry = await pool.resolve({
          tenantId,
          approvalId,
          decision,
          changes,
          reply,
          deadlineAt: deadlineOf(call),
          credentialGrant: request.credentialGrant || undefined,
          decidedBy: request.decidedBy ? text(request.decidedBy, 'decided_by', limits) : undefined,
        });
        return { entry: toProtoEntry(entry) };
      },
    ),

    listPending: unaryHandler<agentPoolV1.ListPendingRequest, agentPoolV1.ListPendingResponse>(
      logger,
      'ListPending',
      async (request) => {
        const tenantId = tenantOf(request);
        const conversationId = request.conversationId
          ? parseOrReject(ConversationId, request.conversationId, ErrorCodes.INVALID_CONVERSATION_ID, 'conversation_id')
          : undefined;
        const rows = await pool.listPending(tenantId, conversationId);
        return { entries: rows.map(toProtoEntry) };
      },
    ),

    getAgent: entryHandler('GetAgent', (tenantId, entryId) => pool.get(tenantId, entryId)),
    getApproval: unaryHandler<agentPoolV1.GetApprovalRequest, agentPoolV1.GetApprovalResponse>(
      logger,
      'GetApproval',
      async (request) => {
        const tenantId = tenantOf(request);
        const approvalId = parseOrReject(ApprovalId, request.approvalId, ErrorCodes.INVALID_APPROVAL_ID, 'approval_id');
        return { entry: toProtoEntry(await pool.getByApproval(tenantId, approvalId)) };
      },
    ),
    pauseAgent: entryHandler('PauseAgent', (tenantId, entryId) => pool.pause(tenantId, entryId)),
    resumeAgent: entryHandler('ResumeAgent', (tenantId, entryId) => pool.resume(tenantId, entryId)),
    cancelAgent: entryHandler('CancelAgent', (tenantId, entryId) => pool.cancel(tenantId, entryId)),

    deleteConversation: unaryHandler<agentPoolV1.DeleteConversationRequest, agentPoolV1.DeleteConversationResponse>(
      logger,
      'DeleteConversation',
      async (request) => {
        const tenantId = tenantOf(request);
        const conversationId = parseOrReject(
          ConversationId,
          request.conversationId,
          ErrorCodes.INVALID_CONVERSATION_ID,
          'conversation_id',
        );
        const done = await pool.deleteConversation(tenantId, conversationId);
        logger.info({ tenantId, conversationId, ...done }, 'conversation entries deleted');
        return { entriesCancelled: done.cancelled, entriesDeleted: done.deleted };
      },
    ),
  };
}
