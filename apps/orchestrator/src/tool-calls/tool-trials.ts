import { TenantId, ToolName } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, type Logger } from '@platform/service-kit';
import type { ToolCatalog } from '@platform/tool-sdk';
import type { ProfileRegistry } from '../profiles.js';
import { outcomeOf } from '../runner-tool-port.js';
import { allowlistOf, gateError } from '../tool-gate/gate-errors.js';
import { GateRefusalCode } from '../tool-gate/gate-rules.js';
import type { ToolGate } from '../tool-gate/tool-gate.js';
import { traced } from '../tool-gate/tool-span.js';
import { argumentRefusal, argumentsOf, callOutcome } from './call-results.js';
import type { ToolCallRecord, ToolCallRecords } from './tool-call-records.js';
import { ErrorCodes } from '../error-codes.js';

export interface ToolTrialDependencies {
  /** The gate every tool call passes: a tried call meets the same allowlist, breakers and grants as a run's. */
  gate: ToolGate;
  /** For reading back a call whose tool may have gone (its timeout bounds `running`). */
  catalog: ToolCatalog;
  records: ToolCallRecords;
  /** The agent profiles: a tried call must pass the caller's profile's tool allowlist. */
  profiles: Pick<ProfileRegistry, 'resolve' | 'namesFor'>;
  /** The tier of a caller whose token names none. */
  defaultTier: string;
  logger: Logger;
}

/**
 * Call ids the api issues for tried calls (`try_<uuid>`). A tried call belongs to no run or
 * conversation, so it travels with its call id as both (runners and the credential audit see it).
 */
const TRY_CALL_ID = /^try_[0-9a-f-]{36}$/;

/**
 * How long past its tool's timeout a call may stay `running` before a read reports it
 * interrupted (its orchestrator died mid-call); `UNKNOWN_TOOL_BOUND_MS` stands for the timeout of a
 * tool no longer in the catalog.
 */
const INTERRUPTED_AFTER_MS = 30_000;
const UNKNOWN_TOOL_BOUND_MS = 10 * 60_000;

/** A journaled call as the gRPC answer carries it. */
export function toolCallResult(record: ToolCallRecord): orchestratorV1.ToolCallResult {
  return {
    callId: record.callId,
    toolName: record.toolName,
    status: record.status,
    outputJson: record.output === undefined ? '' : JSON.stringify(record.output),
    truncated: record.truncated,
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
    durationMs: record.durationMs,
    runner: record.runner,
    argumentsJson: JSON.stringify(record.arguments),
    startedAt: record.startedAt,
    finishedAt: record.finishedAt ?? undefined,
  };
}

/**
 * Calls of one tool that a client tries directly (POST /v1/tools/{name}/calls): the call goes
 * through the tool gate like a model's call (profile allowlist, credential grant, circuit breaker,
 * the tool's own timeout, NATS dispatch to a runner replica), under the caller's tenant, and is journaled before
 * it is sent and again with its outcome. See docs/api.md#trying-a-tool.
 */
export class ToolTrials {
  constructor(private readonly deps: ToolTrialDependencies) {}

  async call(request: orchestratorV1.CallToolRequest, signal: AbortSignal): Promise<ToolCallRecord> {
    if (!TenantId.safeParse(request.tenantId).success)
      throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
    if (!TRY_CALL_ID.test(request.callId))
      throw errors.invalidArgument(ErrorCodes.INVALID_CALL_ID, 'call_id must be try_<uuid>');
    if (!ToolName.safeParse(request.toolName).success)
      throw errors.notFound(ErrorCodes.TOOL_NOT_FOUND, `no tool '${request.toolName}'`);
    const args = argumentsOf(request.argumentsJson);
    // A tried call passes the gate as a model's call under the caller's profile would: a tenant
    // cannot reach, by trying it, a tool its agents are not given.
    const allowlist = allowlistOf(this.deps.profiles, request, this.deps.defaultTier);
    const verdict = await this.deps.gate.admitFresh({ caller: 'try', tool: request.toolName, ...allowlist });
    if (verdict.verdict === 'unknown')
      throw errors.notFound(ErrorCodes.TOOL_NOT_FOUND, `no tool '${request.toolName}'`);
    if (verdict.verdict === 'refused')
      throw gateError(
        verdict.refusal,
        verdict.refusal.code === GateRefusalCode.notAllowed ? ', so it cannot be tried under it' : '',
      );
    if (verdict.verdict !== 'send')
      throw errors.internal(
        ErrorCodes.GATE_VERDICT,
        `the tool gate held a tried call of '${request.toolName}' for the user`,
      );
    const { entry } = verdict;

    const { created, record } = await this.deps.records.start({
      tenantId: request.tenantId,
      callId: request.callId,
      toolName: entry.name,
      arguments: args,
      subject: request.subject,
      runner: entry.runner,
    });
    // The same call id again (a retry) answers what was journaled; it is never sent twice from here.
    if (!created) return record;
    const started = Date.now();
    const call = { id: request.callId, name: entry.name, arguments: args };
    // A tried call belongs to no run or conversation: its call id stands for both.
    const target = {
      tenantId: request.tenantId,
      conversationId: request.callId,
      runId: request.callId,
      deadlineAt: started + entry.timeoutMs,
      signal,
    };
    const sent = await traced(call, () => this.deps.gate.send(entry, call, target), outcomeOf);
    const finished = await this.deps.records.finish(
      request.tenantId,
      request.callId,
      callOutcome(sent, Date.now() - started),
    );
    this.deps.logger.info(
      { tenantId: request.tenantId, tool: entry.name, callId: request.callId, status: finished.status },
      'tried a tool',
    );
    const refused = argumentRefusal(sent);
    if (refused) throw refused;
    return finished;
  }

  async get(tenantId: string, callId: string): Promise<ToolCallRecord> {
    // Another tenant's call is reported exactly like a missing one.
    const record =
      TenantId.safeParse(tenantId).success && callId ? await this.deps.records.get(tenantId, callId) : undefined;
    if (!record) throw errors.notFound(ErrorCodes.TOOL_CALL_NOT_FOUND, `no tool call '${callId}'`);
    if (record.status !== 'running') return record;
    // Still running long past its tool's timeout: the orchestrator that ran it is gone.
    const found = this.deps.catalog.lookup(record.toolName);
    const timeoutMs = found.state === 'unknown' ? UNKNOWN_TOOL_BOUND_MS : found.entry.timeoutMs;
    return (
      (await this.deps.records.interrupt(tenantId, callId, timeoutMs + INTERRUPTED_AFTER_MS)) ??
      (await this.deps.records.get(tenantId, callId)) ??
      record
    );
  }
}
