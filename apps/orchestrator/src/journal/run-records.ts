import type { LoopResult } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import { jsonbText } from '@platform/service-kit';
import type { MemoryRecallReport } from '../recall/recall-report.js';

import { RunLeases } from './run-leases.js';
import {
  agentValues,
  fenceCte,
  idempotencyValues,
  isSecondRunningRun,
  keyedCte,
  keyedGuard,
  LIVE_ORDER,
  messageValues,
  provenanceValues,
  USAGE_SHARDS,
} from './run-statements.js';
import { agentOf, lineageOf, replayOfRow, stopOf, type RunRow } from './run-rows.js';
import { conversationCtes, conversationEndCte, conversationValues } from './conversation-statements.js';
import {
  ConversationClosedError,
  isLive,
  LeaseLostError,
  type ApprovalDecisionInput,
  type ClaimedRun,
  type RunFence,
  type NewRun,
  type RunKind,
  type RunRecord,
  type RunSource,
  type RunStatus,
  type RunSummary,
} from './run-types.js';

export * from './run-types.js';

/** The runs table of the journal: the writes of a run's life (admit, claim, finish, cancel), over its leases and reads. */
export class RunRecords extends RunLeases {
  /** Records an accepted message as a queued run; false when the run id already exists. */
  async create(run: NewRun): Promise<boolean> {
    const { rows } = await this.pool.query<{ open: boolean; created: boolean }>({
      name: 'runs-create',
      text: `WITH ${conversationCtes({ tenantId: '$2', conversationId: '$3', agentId: '$18', first: 27 })},
       ${keyedCte('$1', '$2', '$24', '$25', '$26', '(SELECT open FROM gate)')},
       created AS (
         INSERT INTO runs (run_id, tenant_id, conversation_id, status, profile, content, tier, stream, time_zone, approval, kind, source, created_at, trace_id,
               parent_run_id, parent_call_id, delegation_chain, depth, tool_scope, agent_id, agent_version, overrides, subject, sender_role,
               output_schema, replay_of, replay_from_step, protocol, protocol_request)
         SELECT $1, $2, $3, 'queued', $4, $5, $6, $7, $8, $9, $10, $11, clock_timestamp(), $12, $13, $14, coalesce($15::text[], '{}'), $16, $17::text[],
               $18, $19, $20::jsonb, $21, $22, $23::jsonb, $31, $32, $33, $34::jsonb
         FROM gate WHERE gate.open AND ${keyedGuard('$24')}
         ON CONFLICT (run_id) DO NOTHING
         RETURNING 1)
       SELECT (SELECT open FROM gate) AS open, EXISTS (SELECT 1 FROM created) AS created`,
      values: [
        ...messageValues(run),
        run.source ? jsonbText(run.source) : null,
        run.traceId ?? null,
        run.lineage?.parentRunId ?? null,
        run.lineage?.parentCallId ?? null,
        run.lineage?.chain ?? null,
        run.lineage ? Math.max(0, run.lineage.chain.length - 1) : 0,
        run.lineage?.tools ?? null,
        ...agentValues(run),
        run.outputSchema ? jsonbText(run.outputSchema) : null,
        ...idempotencyValues(run),
        ...conversationValues(run),
        ...provenanceValues(run),
      ],
    });
    if (!rows[0]?.open) throw new ConversationClosedError(run.conversationId);
    return rows[0].created;
  }

  /**
   * Records a new message's run and, in the same statement, claims it for this orchestrator when
   * the conversation is idle: no other live run, and the conversation token is at least as high
   * as any that claimed before (as in {@link claimNext}). Otherwise the run is recorded as queued
   * and `claimed` is undefined. `created` is false when the run id exists already (nothing is
   * written then). The caller holds the conversation's lease under `token`.
   */
  async admit(
    run: NewRun,
    owner: string,
    leaseMs: number,
    token: number,
  ): Promise<{ created: boolean; claimed: ClaimedRun | undefined }> {
    try {
      return await this.admitClaimed(run, owner, leaseMs, token);
    } catch (err) {
      // Another run of the conversation started meanwhile (a racing replica): this one queues.
      if (isSecondRunningRun(err)) return { created: await this.create(run), claimed: undefined };
      throw err;
    }
  }

  private async admitClaimed(
    run: NewRun,
    owner: string,
    leaseMs: number,
    token: number,
  ): Promise<{ created: boolean; claimed: ClaimedRun | undefined }> {
    const { rows } = await this.pool.query<{
      status: RunStatus | null;
      lease_epoch: number | null;
      created_at: Date | null;
      agents_may_wait: boolean;
      conversation_open: boolean;
    }>({
      name: 'runs-admit',
      text: `WITH ${fenceCte('$2', '$3', '$13')},
       ${conversationCtes({ tenantId: '$2', conversationId: '$3', agentId: '$16', first: 25 })},
       ${keyedCte('$1', '$2', '$22', '$23', '$24', '(SELECT open FROM gate)')},
       idle AS (
         SELECT EXISTS (SELECT 1 FROM fence) AND (SELECT open FROM gate)
           AND NOT EXISTS (SELECT 1 FROM runs WHERE tenant_id = $2 AND conversation_id = $3 AND status IN ('queued', 'running')) AS yes),
       admitted AS (
         INSERT INTO runs (run_id, tenant_id, conversation_id, status, profile, content, tier, stream, time_zone, approval, kind, source, created_at,
           lease_owner, lease_until, lease_epoch, attempts, started_at, trace_id, agent_id, agent_version, overrides, subject, sender_role,
           output_schema, replay_of, replay_from_step, protocol, protocol_request)
         SELECT $1, $2, $3, CASE WHEN yes THEN 'running' ELSE 'queued' END, $4, $5, $6, $7, $8, $9, $10, $14, clock_timestamp(),
           CASE WHEN yes THEN $11 END, CASE WHEN yes THEN now() + ($12 * interval '1 millisecond') END,
           CASE WHEN yes THEN 1 ELSE 0 END, CASE WHEN yes THEN 1 ELSE 0 END, CASE WHEN yes THEN now() END, $15,
           $16, $17, $18::jsonb, $19, $20, $21::jsonb, $29, $30, $31, $32::jsonb
         FROM idle WHERE (SELECT open FROM gate) AND ${keyedGuard('$22')}
         ON CONFLICT (run_id) DO NOTHING
         RETURNING status, lease_epoch, created_at)
       SELECT admitted.*, EXISTS (SELECT 1 FROM conversation_agents WHERE tenant_id = $2 AND conversation_id = $3) AS agents_may_wait,
         (SELECT open FROM gate) AS conversation_open
       FROM (SELECT 1) AS one LEFT JOIN admitted ON true`,
      values: [
        ...messageValues(run),
        owner,
        leaseMs,
        token,
        run.source ? jsonbText(run.source) : null,
        run.traceId ?? null,
        ...agentValues(run),
        run.outputSchema ? jsonbText(run.outputSchema) : null,
        ...idempotencyValues(run),
        ...conversationValues(run),
        ...provenanceValues(run),
      ],
    });
    const row = rows[0];
    if (row && !row.conversation_open) throw new ConversationClosedError(run.conversationId);
    if (!row?.status) return { created: false, claimed: undefined };
    if (row.status !== 'running') return { created: true, claimed: undefined };
    return {
      created: true,
      claimed: {
        ...run,
        kind: run.kind ?? 'message',
        agentsMayWait: row.agents_may_wait,
        epoch: row.lease_epoch ?? 1,
        input: null,
        attempts: 1,
        cancelRequested: false,
        createdAt: row.created_at ?? new Date(),
      },
    };
  }

  /**
   * Takes the conversation's next live run for this orchestrator, in one statement: the run already
   * running if there is one (its holder may have died; it is resumed before anything else), else
   * the oldest queued run. Allowed when nobody holds it or the holder's lease expired (also this
   * process's own lease: an attempt that failed here is retried once its lease runs out, not at
   * once), and only with a conversation token at least as high as any that claimed before
   * (fencing: a holder whose conversation lease expired can no longer claim). A run that another
   * writer starts meanwhile, unseen by this statement's snapshot, makes the claim fail at the
   * `runs_one_running` index; then nothing is claimed. `next` is the next live run whether or
   * not it could be claimed.
   */
  async claimNext(
    tenantId: string,
    conversationId: string,
    owner: string,
    leaseMs: number,
    token: number,
  ): Promise<{ next: string | undefined; claimed: ClaimedRun | undefined }> {
    try {
      return await this.claimNextLive(tenantId, conversationId, owner, leaseMs, token);
    } catch (err) {
      if (!isSecondRunningRun(err)) throw err;
      const { rows } = await this.pool.query<{ run_id: string }>(
        `SELECT run_id FROM runs WHERE tenant_id = $1 AND conversation_id = $2 AND status IN ('queued', 'running') ${LIVE_ORDER} LIMIT 1`,
        [tenantId, conversationId],
      );
      return { next: rows[0]?.run_id, claimed: undefined };
    }
  }

  private async claimNextLive(
    tenantId: string,
    conversationId: string,
    owner: string,
    leaseMs: number,
    token: number,
  ): Promise<{ next: string | undefined; claimed: ClaimedRun | undefined }> {
    const { rows } = await this.pool.query<
      Partial<RunRow> & {
        next_run_id: string | null;
        lease_epoch: number | null;
        input: ChatMessage[] | null;
        attempts: number | null;
        approval: ApprovalDecisionInput | null;
        kind: RunKind | null;
        source: RunSource | null;
        output_schema: Record<string, unknown> | null;
        agents_may_wait: boolean;
      }
    >({
      name: 'runs-claim-next',
      text: `WITH ${fenceCte('$1', '$2', '$5')},
       next AS (
         SELECT run_id FROM runs WHERE tenant_id = $1 AND conversation_id = $2 AND status IN ('queued', 'running')
         ${LIVE_ORDER} LIMIT 1),
       claimed AS (
         UPDATE runs SET status = 'running', lease_owner = $3, lease_until = now() + ($4 * interval '1 millisecond'),
           lease_epoch = lease_epoch + 1, attempts = attempts + 1, started_at = coalesce(started_at, now())
         FROM next
         WHERE runs.run_id = next.run_id AND EXISTS (SELECT 1 FROM fence)
           AND (runs.lease_owner IS NULL OR runs.lease_until < now())
         RETURNING runs.*)
       SELECT (SELECT run_id FROM next) AS next_run_id,
         EXISTS (SELECT 1 FROM conversation_agents WHERE tenant_id = $1 AND conversation_id = $2) AS agents_may_wait,
         claimed.* FROM (SELECT 1) AS one LEFT JOIN claimed ON true`,
      values: [tenantId, conversationId, owner, leaseMs, token],
    });
    const row = rows[0];
    const next = row?.next_run_id ?? undefined;
    if (!row?.run_id) return { next, claimed: undefined };
    return {
      next,
      claimed: {
        runId: row.run_id,
        tenantId,
        conversationId,
        profile: row.profile ?? '',
        content: row.content ?? '',
        tier: row.tier ?? '',
        stream: row.stream ?? false,
        timeZone: row.time_zone ?? '',
        ...(row.approval ? { approval: row.approval } : {}),
        kind: row.kind ?? 'message',
        ...(row.source ? { source: row.source } : {}),
        ...lineageOf(row),
        ...agentOf(row),
        ...(row.output_schema ? { outputSchema: row.output_schema } : {}),
        agentsMayWait: row.agents_may_wait,
        epoch: row.lease_epoch ?? 0,
        input: row.input,
        attempts: row.attempts ?? 1,
        cancelRequested: row.cancel_requested ?? false,
        ...stopOf(row),
        ...replayOfRow(row),
        createdAt: row.created_at ?? new Date(),
      },
    };
  }

  /** Records the outcome and the tenant's token usage in one statement; fenced by the epoch (see {@link RunFence}). */
  async finish(
    run: ClaimedRun,
    status: RunStatus,
    result: LoopResult,
    memoryRecall?: MemoryRecallReport,
  ): Promise<RunRecord> {
    const { transcript, messages: _messages, ...loopSummary } = result;
    const summary: RunSummary = memoryRecall ? { ...loopSummary, memoryRecall } : loopSummary;
    const { rows } = await this.pool.query<{ finished_at: Date }>({
      name: 'runs-finish',
      text: `WITH finished AS (
         UPDATE runs SET status = $3, stop_reason = $4, result = $5, transcript = $6, finished_at = now(), lease_owner = NULL, lease_until = NULL
         WHERE run_id = $1 AND tenant_id = $9 AND conversation_id = $10 AND lease_epoch = $2 AND status = 'running'
         RETURNING tenant_id, conversation_id, finished_at),
       ${conversationEndCte('$3')},
       usage AS (
         INSERT INTO tenant_usage_shards (tenant_id, day, shard, turns, input_tokens, output_tokens)
         SELECT tenant_id, (now() AT TIME ZONE 'UTC')::date, pg_backend_pid() % ${USAGE_SHARDS}, 1, $7, $8 FROM finished
         ON CONFLICT (tenant_id, day, shard) DO UPDATE SET turns = tenant_usage_shards.turns + 1,
           input_tokens = tenant_usage_shards.input_tokens + EXCLUDED.input_tokens, output_tokens = tenant_usage_shards.output_tokens + EXCLUDED.output_tokens)
       SELECT finished_at FROM finished`,
      values: [
        run.runId,
        run.epoch,
        status,
        result.stopReason,
        jsonbText(summary),
        jsonbText(transcript),
        result.usage.inputTokens,
        result.usage.outputTokens,
        run.tenantId,
        run.conversationId,
      ],
    });
    if (!rows[0]) throw new LeaseLostError(run.runId);
    return {
      runId: run.runId,
      tenantId: run.tenantId,
      conversationId: run.conversationId,
      status,
      stopReason: result.stopReason,
      profile: run.profile,
      content: run.content,
      tier: run.tier,
      stream: run.stream,
      timeZone: run.timeZone,
      result: summary,
      transcript,
      cancelRequested: run.cancelRequested,
      createdAt: run.createdAt,
      finishedAt: rows[0].finished_at,
      traceId: run.traceId ?? null,
      ...(run.lineage ? { lineage: run.lineage } : {}),
      ...(run.agent ? { agent: run.agent } : {}),
      ...(run.overrides ? { overrides: run.overrides } : {}),
      ...(run.subject ? { subject: run.subject } : {}),
    };
  }

  /**
   * Asks a run to stop. A queued run is finished as cancelled at once (nothing ran); a running one
   * is flagged for its holder, which sees the flag on its next lease renewal (or a broadcast).
   */
  async requestCancel(
    tenantId: string,
    runId: string,
    result: (record: RunRecord) => LoopResult,
  ): Promise<RunRecord | undefined> {
    const record = await this.get(tenantId, runId);
    if (!record || !isLive(record.status)) return record;
    if (record.status === 'queued') {
      const cancelled = result(record);
      const { transcript, messages: _messages, ...summary } = cancelled;
      const { rowCount } = await this.pool.query(
        `UPDATE runs SET status = 'cancelled', stop_reason = $5, result = $3, transcript = $4, finished_at = now(), cancel_requested = true
         WHERE tenant_id = $1 AND run_id = $2 AND status = 'queued' AND lease_owner IS NULL`,
        [tenantId, runId, jsonbText(summary), jsonbText(transcript), cancelled.stopReason],
      );
      if (rowCount === 1) return this.get(tenantId, runId);
    }
    await this.pool.query(
      `UPDATE runs SET cancel_requested = true WHERE tenant_id = $1 AND run_id = $2 AND status IN ('queued', 'running')`,
      [tenantId, runId],
    );
    return this.get(tenantId, runId);
  }

  /** Stores a plan-and-execute run's plan as it changes; fenced by the epoch like every write of a running run. */
  async recordPlan(run: RunFence, plan: unknown): Promise<void> {
    const { rowCount } = await this.pool.query(
      `UPDATE runs SET plan = $3 WHERE run_id = $1 AND tenant_id = $4 AND conversation_id = $5 AND lease_epoch = $2 AND status = 'running'`,
      [run.runId, run.epoch, jsonbText(plan), run.tenantId, run.conversationId],
    );
    if (rowCount !== 1) throw new LeaseLostError(run.runId);
  }
}
