// What the gRPC surface (orchestrator-service.ts) reads from requests and writes into responses.
import { traceFields } from '@platform/telemetry';
import { randomUUID } from 'node:crypto';
import { ZERO_USAGE } from '@platform/agent-loop';
import { ApprovalDecision, RunId, RunProtocol, SUBJECT_SAFE_RUN_ID, TenantRole } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors } from '@platform/service-kit';
import { z } from 'zod';
import type { ApprovalDecisionInput, RunRecord, RunRecords, RunSource } from './journal/run-records.js';
import { ErrorCodes } from './error-codes.js';

/** An AbortSignal that fires when the gRPC caller goes away. */
export function callerGone(call: { on(event: 'cancelled', listener: () => void): unknown }): AbortSignal {
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort(new Error('the caller went away')));
  return controller.signal;
}

export function toResponse(run: RunRecord): orchestratorV1.HandleMessageResponse {
  const result = run.result;
  return {
    runId: run.runId,
    status: run.status,
    stopReason: run.stopReason ?? '',
    response: result?.response ?? '',
    turns: result?.turns ?? 0,
    toolCalls: (result?.toolCalls ?? []).map((c) => ({
      callId: c.callId,
      name: c.name,
      success: c.success,
      status: c.status,
      durationMs: c.durationMs,
      errorCode: c.errorCode ?? '',
    })),
    durationMs: run.finishedAt ? run.finishedAt.getTime() - run.createdAt.getTime() : 0,
    usage: result?.usage ?? ZERO_USAGE,
    pendingJson: JSON.stringify(result?.pendingAgents ?? []),
    agentId: run.agent?.id ?? '',
    agentVersion: run.agent?.version ?? 0,
    // The structured answer (valid against the run's output schema); empty without one.
    ...(result?.output !== undefined ? { outputJson: JSON.stringify(result.output) } : {}),
  };
}

const Changes = z.record(z.string(), z.unknown());

const TASK_ID = /^task_[0-9a-f-]{36}$/;
const TRIGGER_TYPES = new Set(['schedule', 'event', 'condition', 'manual', 'approval']);

/** Who sent the message, checked: undefined for a user (the default), a trigger task's fire otherwise. */
export function runSourceOf(source: orchestratorV1.MessageSource | undefined): RunSource | undefined {
  const kind = source?.kind || 'user';
  if (kind === 'user') {
    if (source?.taskId || source?.triggerType)
      throw errors.invalidArgument(
        ErrorCodes.INVALID_SOURCE,
        'source.task_id and source.trigger_type are only for source.kind "trigger"',
      );
    return undefined;
  }
  if (kind !== 'trigger')
    throw errors.invalidArgument(ErrorCodes.INVALID_SOURCE, `source.kind must be "user" or "trigger", not "${kind}"`);
  if (!TASK_ID.test(source?.taskId ?? ''))
    throw errors.invalidArgument(
      ErrorCodes.INVALID_SOURCE,
      'source.task_id must be a task id (task_<uuid>) when source.kind is "trigger"',
    );
  if (!TRIGGER_TYPES.has(source?.triggerType ?? ''))
    throw errors.invalidArgument(
      ErrorCodes.INVALID_SOURCE,
      `source.trigger_type must be one of ${[...TRIGGER_TYPES].join(', ')}`,
    );
  const originRunId = source?.originRunId ?? '';
  if (originRunId && !RunId.safeParse(originRunId).success)
    throw errors.invalidArgument(ErrorCodes.INVALID_SOURCE, 'source.origin_run_id is not a run id');
  return {
    kind: 'trigger',
    taskId: source!.taskId,
    triggerType: source!.triggerType,
    ...(originRunId ? { originRunId } : {}),
  };
}

/** The approval decision a message carries (the approvals API), checked. */
export function approvalDecisionOf(request: orchestratorV1.HandleMessageRequest): ApprovalDecisionInput | undefined {
  if (!request.approvalId) return undefined;
  const decision = ApprovalDecision.safeParse(request.decision);
  if (!decision.success)
    throw errors.invalidArgument(ErrorCodes.INVALID_DECISION, 'decision must be "approve", "edit" or "cancel"');
  let changes: Record<string, unknown> | undefined;
  if (request.changesJson) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.changesJson);
    } catch {
      throw errors.invalidArgument(ErrorCodes.INVALID_CHANGES, 'changes must be a JSON object');
    }
    const checked = Changes.safeParse(parsed);
    if (!checked.success) throw errors.invalidArgument(ErrorCodes.INVALID_CHANGES, 'changes must be a JSON object');
    changes = checked.data;
  }
  if (decision.data === 'edit' && !changes)
    throw errors.invalidArgument(ErrorCodes.CHANGES_REQUIRED, 'an "edit" decision needs changes');
  return { approvalId: request.approvalId, decision: decision.data, ...(changes ? { changes } : {}) };
}

/** A run id the caller chose must be usable as a subject token (events) and an id. */
export function runIdOf(requested: string): string {
  if (!requested) return `run_${randomUUID()}`;
  if (!SUBJECT_SAFE_RUN_ID.test(requested))
    throw errors.invalidArgument(ErrorCodes.INVALID_RUN_ID, 'run_id must be 1-128 letters, digits, "_" or "-"');
  return requested;
}

/** Where a run sits in a team: its parent and chain, and the child runs its delegations started. */
export async function delegationOf(records: RunRecords, run: RunRecord): Promise<Record<string, unknown>> {
  const children = await records.children(run.tenantId, run.runId);
  const rootConversationId = run.lineage
    ? await records.rootConversationOf(run.tenantId, run.runId)
    : run.conversationId;
  return {
    rootConversationId: rootConversationId ?? run.conversationId,
    parentRunId: run.lineage?.parentRunId ?? null,
    parentCallId: run.lineage?.parentCallId ?? null,
    chain: run.lineage?.chain ?? [run.profile],
    depth: run.lineage ? run.lineage.chain.length - 1 : 0,
    toolScope: run.lineage?.tools ?? null,
    children: children.map((c) => ({
      runId: c.runId,
      conversationId: c.conversationId,
      role: c.profile,
      callId: c.lineage?.parentCallId ?? null,
      toolScope: c.lineage?.tools ?? null,
      status: c.status,
      stopReason: c.stopReason,
      createdAt: c.createdAt.toISOString(),
      finishedAt: c.finishedAt?.toISOString() ?? null,
    })),
  };
}

/** The trace id of the active span (the HandleMessage call's), to keep with the run. */
export function activeTraceId(): { traceId?: string } {
  const traceId = traceFields().trace_id;
  return traceId ? { traceId } : {};
}

/** The sender's tenant role of a HandleMessage (empty: none, which decides as a member); anything else is a 400. */
export function senderRoleOf(role: string | undefined): { senderRole?: TenantRole } {
  if (!role) return {};
  const parsed = TenantRole.safeParse(role);
  if (!parsed.success)
    throw errors.invalidArgument(ErrorCodes.INVALID_ROLE, `role '${role.slice(0, 64)}' is not a tenant role`, {
      details: { field: 'role' },
    });
  return { senderRole: parsed.data };
}

/** The longest protocol request recorded with a run (HandleMessageRequest.protocol_request_json). */
const MAX_PROTOCOL_REQUEST_CHARS = 65_536;

/**
 * What a HandleMessage's protocol asked beyond the message (empty: nothing), recorded as it is for
 * the edge to read back; anything but a JSON object of at most 64 KiB is a 400.
 */
export function protocolRequestOf(json: string | undefined): { protocolRequest?: Record<string, unknown> } {
  if (!json) return {};
  const refuse = (why: string) =>
    errors.invalidArgument(ErrorCodes.INVALID_PROTOCOL_REQUEST, `protocol_request_json ${why}`, {
      details: { field: 'protocol_request_json' },
    });
  if (json.length > MAX_PROTOCOL_REQUEST_CHARS) throw refuse(`is longer than ${MAX_PROTOCOL_REQUEST_CHARS} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw refuse('is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse('is not a JSON object');
  return { protocolRequest: parsed as Record<string, unknown> };
}

/** The edge protocol of a HandleMessage (empty: none, a message the platform sends itself); anything else is a 400. */
export function protocolOf(protocol: string | undefined): { protocol?: RunProtocol } {
  if (!protocol) return {};
  const parsed = RunProtocol.safeParse(protocol);
  if (!parsed.success)
    throw errors.invalidArgument(ErrorCodes.INVALID_PROTOCOL, `protocol '${protocol.slice(0, 64)}' is not known`, {
      details: { field: 'protocol' },
    });
  return { protocol: parsed.data };
}
