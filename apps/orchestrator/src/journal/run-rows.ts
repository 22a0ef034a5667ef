import type { LoopResult } from '@platform/agent-loop';
import { RunProtocol, TenantRole, type RunOverrides } from '@platform/contracts';
import type { RunLineage, RunRecord, RunStartedBy, RunStatus, RunSummary } from './run-types.js';

/** A row of the runs table as the record queries select it. */
export interface RunRow {
  run_id: string;
  tenant_id: string;
  conversation_id: string;
  status: RunStatus;
  stop_reason: string | null;
  profile: string;
  content: string;
  tier: string;
  stream: boolean;
  time_zone: string;
  result: RunSummary | null;
  transcript: LoopResult['transcript'] | null;
  cancel_requested: boolean;
  created_at: Date;
  finished_at: Date | null;
  trace_id: string | null;
  parent_run_id: string | null;
  parent_call_id: string | null;
  delegation_chain: string[] | null;
  tool_scope?: string[] | null;
  plan: unknown;
  started_at?: Date | null;
  kind?: string;
  source?: { kind?: string } | null;
  agent_id?: string | null;
  agent_version?: number | null;
  overrides?: RunOverrides | null;
  subject?: string | null;
  sender_role?: string | null;
  stop_requested?: string | null;
  stopped_by?: string | null;
  replay_of?: string | null;
  replay_from_step?: number | null;
  protocol?: string | null;
  protocol_request?: Record<string, unknown> | null;
  steers?: string | null;
}

/** The agent, overrides, subject (migrations/0012) and sender role (0020) columns as a run's fields. */
export function agentOf(
  row: Partial<Pick<RunRow, 'agent_id' | 'agent_version' | 'overrides' | 'subject' | 'sender_role'>>,
): Pick<RunRecord, 'agent' | 'overrides' | 'subject' | 'senderRole'> {
  const senderRole = TenantRole.safeParse(row.sender_role);
  return {
    ...(row.agent_id ? { agent: { id: row.agent_id, version: row.agent_version ?? 0 } } : {}),
    ...(row.overrides ? { overrides: row.overrides } : {}),
    ...(row.subject ? { subject: row.subject } : {}),
    ...(senderRole.success ? { senderRole: senderRole.data } : {}),
  };
}

/**
 * Who started a run, from its columns: the same rule as the listing's SQL (`SOURCE_SQL` in
 * listing/run-listing.ts), so a run reads the same in GetRun and in ListRuns.
 */
function sourceOfRow(row: Pick<RunRow, 'parent_run_id' | 'kind' | 'source'>): RunStartedBy {
  if (row.parent_run_id) return 'child';
  if (row.source?.kind === 'trigger') return 'trigger';
  if (row.kind === 'agent_expired') return 'notice';
  return 'user';
}

export function lineageOf(
  row: Partial<Pick<RunRow, 'parent_run_id' | 'parent_call_id' | 'delegation_chain' | 'tool_scope'>>,
): { lineage?: RunLineage } {
  if (!row.parent_run_id) return {};
  return {
    lineage: {
      parentRunId: row.parent_run_id,
      parentCallId: row.parent_call_id ?? '',
      chain: row.delegation_chain ?? [],
      ...(row.tool_scope ? { tools: row.tool_scope } : {}),
    },
  };
}

export function toRecord(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    tenantId: row.tenant_id,
    conversationId: row.conversation_id,
    status: row.status,
    stopReason: row.stop_reason,
    profile: row.profile,
    content: row.content,
    tier: row.tier,
    stream: row.stream,
    timeZone: row.time_zone,
    result: row.result,
    transcript: row.transcript,
    cancelRequested: row.cancel_requested,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    traceId: row.trace_id ?? null,
    startedAt: row.started_at ?? null,
    startedBy: sourceOfRow(row),
    ...lineageOf(row),
    ...(row.plan ? { plan: row.plan } : {}),
    ...agentOf(row),
    ...stopOf(row),
    ...replayOfRow(row),
    ...protocolOfRow(row),
    ...(row.protocol_request ? { protocolRequest: row.protocol_request } : {}),
    ...(row.steers ? { steers: row.steers } : {}),
  };
}

/** The replay columns (migrations/0022) as the run's field. */
export function replayOfRow(row: Pick<RunRow, 'replay_of' | 'replay_from_step'>): Pick<RunRecord, 'replay'> {
  return row.replay_of ? { replay: { runId: row.replay_of, fromStep: row.replay_from_step ?? 0 } } : {};
}

/** The protocol column (migrations/0025) as the run's field; a value this build does not know is left out. */
function protocolOfRow(row: Pick<RunRow, 'protocol'>): Pick<RunRecord, 'protocol'> {
  const protocol = RunProtocol.safeParse(row.protocol);
  return protocol.success ? { protocol: protocol.data } : {};
}

/** A newer message's request that the run stop (migrations/0016) as the run's fields. */
export function stopOf(
  row: Pick<RunRow, 'stop_requested' | 'stopped_by'>,
): Pick<RunRecord, 'stopRequested' | 'stoppedBy'> {
  const requested = row.stop_requested;
  return {
    ...(requested === 'interrupt' || requested === 'rollback' ? { stopRequested: requested } : {}),
    ...(row.stopped_by ? { stoppedBy: row.stopped_by } : {}),
  };
}
