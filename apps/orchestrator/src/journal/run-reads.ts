import type pg from 'pg';
import { toRecord, type RunRow } from './run-rows.js';
import type { DailyUsage, RunRecord } from './run-types.js';

/**
 * The reads of the runs table (a run, its family in a delegation tree, orphaned conversations, a
 * tenant's usage); every read a caller can reach is scoped by tenant. `RunRecords` adds the writes.
 */
export class RunReads {
  constructor(protected readonly pool: pg.Pool) {}

  async get(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.pool.query<RunRow>({
      name: 'runs-get',
      text: 'SELECT * FROM runs WHERE tenant_id = $1 AND run_id = $2',
      values: [tenantId, runId],
    });
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** The runs a run started (its delegations), oldest first; scoped by tenant. */
  /** The runs that replay this one (migrations/0022), oldest first. */
  async replaysOf(tenantId: string, runId: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ run_id: string }>({
      name: 'runs-replays-of',
      text: 'SELECT run_id FROM runs WHERE tenant_id = $1 AND replay_of = $2 ORDER BY created_at, run_id',
      values: [tenantId, runId],
    });
    return rows.map((r) => r.run_id);
  }

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

  /** The conversation's newest run (a run waiting for the user: its answer continues under the same agent version). */
  async latestRun(tenantId: string, conversationId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.pool.query<RunRow>({
      name: 'runs-latest',
      text: `SELECT * FROM runs WHERE tenant_id = $1 AND conversation_id = $2 ORDER BY created_at DESC, run_id DESC LIMIT 1`,
      values: [tenantId, conversationId],
    });
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
