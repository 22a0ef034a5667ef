import type { LoopResult } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import { jsonbText } from '@platform/service-kit';
import type pg from 'pg';
import type { MemoryRecallReport } from '../recall/recall-report.js';

import { lineageOf, toRecord, type RunRow } from './run-rows.js';
import {
  isLive,
  LeaseLostError,
  type ApprovalDecisionInput,
  type ClaimedRun,
  type RunFence,
  type DailyUsage,
  type NewRun,
  type RunKind,
  type RunRecord,
  type RunSource,
  type RunStatus,
  type RunSummary,
} from './run-types.js';

export * from './run-types.js';

/**
 * The CTE `fence` both claims start with: records the conversation token unless a higher one
 * claimed before, and returns a row only when it did (a claim goes ahead only then).
 */
function fenceCte(tenantId: string, conversationId: string, token: string): string {
  return `fence AS (
         INSERT INTO conversation_fences (tenant_id, conversation_id, token) VALUES (${tenantId}, ${conversationId}, ${token})
         ON CONFLICT (tenant_id, conversation_id) DO UPDATE SET token = EXCLUDED.token
           WHERE conversation_fences.token <= EXCLUDED.token
         RETURNING token)`;
}

/**
 * The order a conversation's live runs are taken in: a run already running first (its holder may
 * have died mid-turn; it finishes before anything else starts), then arrival order.
 */
const LIVE_ORDER = "ORDER BY status = 'running' DESC, created_at, arrival";

/**
 * Whether a write failed because its conversation has a running run already: the unique index
 * `runs_one_running` (migration 0004) refuses a second one even when the first is not committed
 * yet, which the statement's own check (a snapshot) cannot see.
 */
function isSecondRunningRun(err: unknown): boolean {
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'runs_one_running';
}

/** The message's own columns, $1 to $10 of both statements that record a new run. */
function messageValues(run: NewRun): unknown[] {
  return [
    run.runId,
    run.tenantId,
    run.conversationId,
    run.profile,
    run.content,
    run.tier,
    run.stream,
    run.timeZone,
    run.approval ? jsonbText(run.approval) : null,
    run.kind ?? 'message',
  ];
}

/**
 * How many rows a tenant's token usage of a day is spread over (migration 0011): a finish adds to
 * the shard of its database session, so concurrent finishes of one tenant do not queue on one row.
 */
const USAGE_SHARDS = 32;

/** The runs table of the journal; every read a caller can reach is scoped by tenant. */
export class RunRecords {
  constructor(private readonly pool: pg.Pool) {}

  /** Records an accepted message as a queued run; false when the run id already exists. */
  async create(run: NewRun): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'runs-create',
      text: `INSERT INTO runs (run_id, tenant_id, conversation_id, status, profile, content, tier, stream, time_zone, approval, kind, source, created_at, trace_id,
               parent_run_id, parent_call_id, delegation_chain, depth, tool_scope)
             VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, $8, $9, $10, $11, clock_timestamp(), $12, $13, $14, coalesce($15::text[], '{}'), $16, $17::text[])
             ON CONFLICT (run_id) DO NOTHING`,
      values: [
        ...messageValues(run),
        run.source ? jsonbText(run.source) : null,
        run.traceId ?? null,
        run.lineage?.parentRunId ?? null,
        run.lineage?.parentCallId ?? null,
        run.lineage?.chain ?? null,
        run.lineage ? Math.max(0, run.lineage.chain.length - 1) : 0,
        run.lineage?.tools ?? null,
      ],
    });
    return rowCount === 1;
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
    }>({
      name: 'runs-admit',
      text: `WITH ${fenceCte('$2', '$3', '$13')},
       idle AS (
         SELECT EXISTS (SELECT 1 FROM fence)
           AND NOT EXISTS (SELECT 1 FROM runs WHERE tenant_id = $2 AND conversation_id = $3 AND status IN ('queued', 'running')) AS yes),
       admitted AS (
         INSERT INTO runs (run_id, tenant_id, conversation_id, status, profile, content, tier, stream, time_zone, approval, kind, source, created_at,
           lease_owner, lease_until, lease_epoch, attempts, started_at, trace_id)
         SELECT $1, $2, $3, CASE WHEN yes THEN 'running' ELSE 'queued' END, $4, $5, $6, $7, $8, $9, $10, $14, clock_timestamp(),
           CASE WHEN yes THEN $11 END, CASE WHEN yes THEN now() + ($12 * interval '1 millisecond') END,
           CASE WHEN yes THEN 1 ELSE 0 END, CASE WHEN yes THEN 1 ELSE 0 END, CASE WHEN yes THEN now() END, $15
         FROM idle
         ON CONFLICT (run_id) DO NOTHING
         RETURNING status, lease_epoch, created_at)
       SELECT admitted.*, EXISTS (SELECT 1 FROM conversation_agents WHERE tenant_id = $2 AND conversation_id = $3) AS agents_may_wait
       FROM (SELECT 1) AS one LEFT JOIN admitted ON true`,
      values: [
        ...messageValues(run),
        owner,
        leaseMs,
        token,
        run.source ? jsonbText(run.source) : null,
        run.traceId ?? null,
      ],
    });
    const row = rows[0];
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

  async get(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.pool.query<RunRow>({
      name: 'runs-get',
      text: 'SELECT * FROM runs WHERE tenant_id = $1 AND run_id = $2',
      values: [tenantId, runId],
    });
    return rows[0] ? toRecord(rows[0]) : undefined;
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
        agentsMayWait: row.agents_may_wait,
        epoch: row.lease_epoch ?? 0,
        input: row.input,
        attempts: row.attempts ?? 1,
        cancelRequested: row.cancel_requested ?? false,
        createdAt: row.created_at ?? new Date(),
      },
    };
  }

  /** Whether a conversation token is stale (a higher one claimed since): the holder lost its lease. */
  async highestFence(tenantId: string, conversationId: string): Promise<number> {
    const { rows } = await this.pool.query<{ token: string }>(
      'SELECT token FROM conversation_fences WHERE tenant_id = $1 AND conversation_id = $2',
      [tenantId, conversationId],
    );
    return rows[0] ? Number(rows[0].token) : 0;
  }

  /** Ends this holder's lease of a running run now (it stops working on it), so another holder may claim it at once. */
  async releaseLease(run: RunFence, owner: string): Promise<void> {
    await this.pool.query(
      `UPDATE runs SET lease_until = now() - interval '1 millisecond'
       WHERE run_id = $1 AND tenant_id = $4 AND conversation_id = $5 AND lease_owner = $2 AND lease_epoch = $3 AND status = 'running'`,
      [run.runId, owner, run.epoch, run.tenantId, run.conversationId],
    );
  }

  /**
   * After an attempt that a dependency's outage stopped: the attempt is not counted (while the run
   * is younger than `refundForMs`), and the lease is held for `backoffMs` more, so no replica takes
   * the run up again before then (each would only fail the same way and use up an attempt).
   */
  async deferAfterOutage(run: RunFence, owner: string, backoffMs: number, refundForMs: number): Promise<void> {
    await this.pool.query(
      `UPDATE runs SET lease_until = now() + ($4 * interval '1 millisecond'),
         attempts = attempts - CASE WHEN created_at > now() - ($5 * interval '1 millisecond') AND attempts > 0 THEN 1 ELSE 0 END
       WHERE run_id = $1 AND tenant_id = $6 AND conversation_id = $7 AND lease_owner = $2 AND lease_epoch = $3 AND status = 'running'`,
      [run.runId, owner, run.epoch, backoffMs, refundForMs, run.tenantId, run.conversationId],
    );
  }

  /** Extends the lease; reports whether cancellation was requested meanwhile. Throws when the lease is lost. */
  async renew(run: RunFence, owner: string, leaseMs: number): Promise<{ cancelRequested: boolean }> {
    const { rows } = await this.pool.query<{ cancel_requested: boolean }>(
      `UPDATE runs SET lease_until = now() + ($4 * interval '1 millisecond')
       WHERE run_id = $1 AND tenant_id = $5 AND conversation_id = $6 AND lease_owner = $2 AND lease_epoch = $3 AND status = 'running' RETURNING cancel_requested`,
      [run.runId, owner, run.epoch, leaseMs, run.tenantId, run.conversationId],
    );
    if (!rows[0]) throw new LeaseLostError(run.runId);
    return { cancelRequested: rows[0].cancel_requested };
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
         RETURNING tenant_id, finished_at),
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
        `UPDATE runs SET status = 'cancelled', stop_reason = 'cancelled', result = $3, transcript = $4, finished_at = now(), cancel_requested = true
         WHERE tenant_id = $1 AND run_id = $2 AND status = 'queued' AND lease_owner IS NULL`,
        [tenantId, runId, jsonbText(summary), jsonbText(transcript)],
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

  /** The runs a run started (its delegations), oldest first; scoped by tenant. */
  async children(tenantId: string, parentRunId: string): Promise<RunRecord[]> {
    const { rows } = await this.pool.query<RunRow>(
      'SELECT * FROM runs WHERE tenant_id = $1 AND parent_run_id = $2 ORDER BY created_at, run_id',
      [tenantId, parentRunId],
    );
    return rows.map(toRecord);
  }

  /** Every live run below a run (children, their children, ...), for cancelling them with it. */
  async liveDescendants(tenantId: string, runId: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ run_id: string }>(
      `WITH RECURSIVE below AS (
         SELECT run_id, status FROM runs WHERE tenant_id = $1 AND parent_run_id = $2
         UNION
         SELECT r.run_id, r.status FROM runs r JOIN below b ON r.tenant_id = $1 AND r.parent_run_id = b.run_id)
       SELECT run_id FROM below WHERE status IN ('queued', 'running')`,
      [tenantId, runId],
    );
    return rows.map((r) => r.run_id);
  }

  /**
   * Child runs of the conversation's runs that stopped to wait for the user and were not answered
   * since (no later run in their own conversation), oldest first.
   */
  async waitingChildren(tenantId: string, conversationId: string): Promise<RunRecord[]> {
    const { rows } = await this.pool.query<RunRow>(
      `SELECT c.* FROM runs c JOIN runs p ON p.tenant_id = c.tenant_id AND p.run_id = c.parent_run_id
       WHERE c.tenant_id = $1 AND p.conversation_id = $2 AND c.status = 'waiting'
         AND NOT EXISTS (SELECT 1 FROM runs n WHERE n.tenant_id = c.tenant_id AND n.conversation_id = c.conversation_id AND n.created_at > c.created_at)
       ORDER BY c.created_at, c.run_id`,
      [tenantId, conversationId],
    );
    return rows.map(toRecord);
  }

  /** The run of the conversation just before this one (the turn the user's message follows), if any. */
  async previousRun(tenantId: string, conversationId: string, runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.pool.query<RunRow>(
      `SELECT p.* FROM runs p JOIN runs r ON r.tenant_id = p.tenant_id AND r.run_id = $3
       WHERE p.tenant_id = $1 AND p.conversation_id = $2 AND (p.created_at, p.run_id) < (r.created_at, r.run_id)
       ORDER BY p.created_at DESC, p.run_id DESC LIMIT 1`,
      [tenantId, conversationId, runId],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** The conversation of the run a user started at the top of this run's delegation chain. */
  async rootConversationOf(tenantId: string, runId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ conversation_id: string }>(
      `WITH RECURSIVE up AS (
         SELECT run_id, parent_run_id, conversation_id, 0 AS level FROM runs WHERE tenant_id = $1 AND run_id = $2
         UNION ALL
         SELECT r.run_id, r.parent_run_id, r.conversation_id, up.level + 1 FROM runs r JOIN up ON r.tenant_id = $1 AND r.run_id = up.parent_run_id
         WHERE up.level < 64)
       SELECT conversation_id FROM up ORDER BY level DESC LIMIT 1`,
      [tenantId, runId],
    );
    return rows[0]?.conversation_id;
  }

  /** Conversations with a live run nobody holds (its orchestrator died, or nobody picked it up). */
  async orphanedConversations(
    olderThanMs: number,
    limit: number,
  ): Promise<Array<{ tenantId: string; conversationId: string }>> {
    const { rows } = await this.pool.query<{ tenant_id: string; conversation_id: string }>(
      `SELECT DISTINCT tenant_id, conversation_id FROM runs
       WHERE status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < now())
         AND created_at < now() - ($1 * interval '1 millisecond')
       LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, conversationId: r.conversation_id }));
  }

  /** An agent-tool is about to start in the conversation: from now on, ask the pool before each message. */
  async markAgentsMayWait(tenantId: string, conversationId: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO conversation_agents (tenant_id, conversation_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [tenantId, conversationId],
    );
  }

  /** The agent pool has nothing waiting in the conversation: stop asking it on every message. */
  async clearAgentsMayWait(tenantId: string, conversationId: string): Promise<void> {
    await this.pool.query('DELETE FROM conversation_agents WHERE tenant_id = $1 AND conversation_id = $2', [
      tenantId,
      conversationId,
    ]);
  }

  /**
   * A tenant's token usage per UTC day from `fromDay` to `toDay` (inclusive, YYYY-MM-DD), days with
   * turns only: the sum of the day's shards and of its row in `tenant_usage` (written before 0011).
   */
  async usage(tenantId: string, fromDay: string, toDay: string): Promise<DailyUsage[]> {
    const { rows } = await this.pool.query<{ day: string; turns: string; input_tokens: string; output_tokens: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(turns) AS turns, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
       FROM (SELECT day, turns, input_tokens, output_tokens FROM tenant_usage_shards WHERE tenant_id = $1 AND day BETWEEN $2::date AND $3::date
             UNION ALL
             SELECT day, turns, input_tokens, output_tokens FROM tenant_usage WHERE tenant_id = $1 AND day BETWEEN $2::date AND $3::date) AS counted
       GROUP BY day ORDER BY day`,
      [tenantId, fromDay, toDay],
    );
    return rows.map((row) => ({
      day: row.day,
      turns: Number(row.turns),
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
    }));
  }
}
