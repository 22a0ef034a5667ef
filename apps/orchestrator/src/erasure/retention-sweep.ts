import type { TenantTiers } from '@platform/contracts';
import { inTransaction, type Logger } from '@platform/service-kit';
import type pg from 'pg';
import type { DeletionStore } from './deletion-store.js';

export interface RetentionSweepOptions {
  pool: pg.Pool;
  store: DeletionStore;
  tiers: TenantTiers;
  defaultTier: string;
  intervalMs: number;
  /** Conversations put up for deletion per sweep at most (the next sweep takes the rest). */
  batch: number;
  /** Called when jobs were recorded (the worker starts them). */
  recorded: () => void;
  logger: Logger;
}

/** Runs `delegation:<run>` conversations belong to their parent's and go with it. */
const CHILD_PREFIX = 'delegation:';

/**
 * The retention sweep (docs/conversations.md, "Retention"): every interval, one replica (a
 * transaction-scoped advisory lock; the others skip the sweep) records a deletion job for each
 * conversation idle longer than its tier's `conversationRetentionSeconds`. The tier of a
 * conversation is its latest run's (the token's tier then), else the default tier. Jobs are
 * recorded idempotently (one open deletion per conversation), so a sweep repeated by another
 * replica after a crash records nothing twice.
 */
export class RetentionSweep {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RetentionSweepOptions) {}

  /** The tiers with a retention period, as SQL parameters; empty when retention is off everywhere. */
  private periods(): { tiers: string[]; seconds: number[]; defaultSeconds: number | null } {
    const { tiers, defaultTier } = this.options;
    const named = Object.entries(tiers).filter(([, limits]) => limits.conversationRetentionSeconds !== undefined);
    return {
      tiers: named.map(([tier]) => tier),
      seconds: named.map(([, limits]) => limits.conversationRetentionSeconds!),
      defaultSeconds: tiers[defaultTier]?.conversationRetentionSeconds ?? null,
    };
  }

  start(): void {
    if (this.periods().tiers.length === 0) return;
    this.timer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.options.logger.error({ err }, 'retention sweep failed'));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One sweep; resolves with the number of deletions recorded (0 when another replica sweeps). */
  async sweep(): Promise<number> {
    const periods = this.periods();
    if (periods.tiers.length === 0) return 0;
    const due = await inTransaction(this.options.pool, async (client) => {
      const locked = await client.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_xact_lock(hashtextextended('orchestrator-retention-sweep', 0)) AS ok",
      );
      if (!locked.rows[0]?.ok) return [];
      const { rows } = await client.query<{ tenant_id: string; conversation_id: string }>(
        `WITH latest AS (
           SELECT DISTINCT ON (tenant_id, conversation_id) tenant_id, conversation_id, tier,
                  greatest(created_at, coalesce(finished_at, created_at)) AS active_at,
                  bool_or(status IN ('queued', 'running')) OVER (PARTITION BY tenant_id, conversation_id) AS live
           FROM runs WHERE left(conversation_id, ${CHILD_PREFIX.length}) <> '${CHILD_PREFIX}'
           ORDER BY tenant_id, conversation_id, created_at DESC),
         periods AS (SELECT * FROM unnest($1::text[], $2::int[]) AS p(tier, seconds))
         SELECT l.tenant_id, l.conversation_id FROM latest l
         LEFT JOIN periods p ON p.tier = l.tier
         WHERE NOT l.live
           AND coalesce(p.seconds, CASE WHEN l.tier = '' OR NOT (l.tier = ANY($1::text[])) THEN $3::int END) IS NOT NULL
           AND l.active_at < now() - coalesce(p.seconds, $3::int) * interval '1 second'
           AND NOT EXISTS (SELECT 1 FROM conversation_deletions d WHERE d.tenant_id = l.tenant_id
                           AND d.conversation_id = l.conversation_id AND d.status <> 'completed')
         LIMIT $4`,
        [periods.tiers, periods.seconds, periods.defaultSeconds, this.options.batch],
      );
      return rows;
    });
    for (const row of due)
      await this.options.store.open({
        tenantId: row.tenant_id,
        conversationId: row.conversation_id,
        reason: 'retention',
        actor: 'retention',
      });
    if (due.length > 0) {
      this.options.logger.info({ conversations: due.length }, 'retention: idle conversations put up for deletion');
      this.options.recorded();
    }
    return due.length;
  }
}
