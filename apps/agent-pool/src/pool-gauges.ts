import type { Logger } from '@platform/service-kit';
import { observeGauge, PLATFORM, type GaugeReading } from '@platform/telemetry';
import type pg from 'pg';

/** Approvals that expire within this window count as "near expiry" (the alert and the dashboard). */
const APPROVAL_EXPIRY_WARNING_MINUTES = 10;

/**
 * The pool's size for metrics: live entries by kind and status (`platform.agent_pool.entries`)
 * and approvals expiring within {@link APPROVAL_EXPIRY_WARNING_MINUTES}
 * (`platform.agent_pool.approvals.expiring`), counted every `intervalMs` over all tenants (one
 * indexed query) and served from that snapshot at each scrape.
 */
export class PoolGauges {
  private entries: GaugeReading[] = [];
  private expiring: GaugeReading[] = [{ value: 0 }];
  private timer: NodeJS.Timeout | undefined;
  private readonly stopObserving: Array<() => void> = [];

  constructor(private readonly options: { db: pg.Pool; intervalMs: number; logger: Logger }) {}

  start(): void {
    this.stopObserving.push(
      observeGauge(
        PLATFORM.agentPoolEntriesMetric,
        { unit: '{entry}', description: 'Live agent-pool entries (waiting or paused), by kind and status' },
        () => this.entries,
      ),
      observeGauge(
        PLATFORM.agentPoolApprovalsExpiringMetric,
        {
          unit: '{approval}',
          description: `Approvals waiting for the user that expire within ${APPROVAL_EXPIRY_WARNING_MINUTES} minutes`,
        },
        () => this.expiring,
      ),
    );
    const tick = (): void => {
      void this.refresh().finally(() => {
        if (this.stopObserving.length > 0) this.timer = setTimeout(tick, this.options.intervalMs).unref();
      });
    };
    tick();
  }

  async refresh(): Promise<void> {
    try {
      const { rows } = await this.options.db.query<{ kind: string; status: string; n: string; expiring: string }>(
        `SELECT kind, status, count(*) AS n,
                count(*) FILTER (WHERE status = 'waiting_for_approval' AND expires_at < now() + make_interval(mins => $1)) AS expiring
           FROM entries WHERE status IN ('waiting_for_input', 'waiting_for_approval', 'paused') GROUP BY kind, status`,
        [APPROVAL_EXPIRY_WARNING_MINUTES],
      );
      this.entries = rows.map((row) => ({
        value: Number(row.n),
        attributes: { [PLATFORM.agentStatus]: row.status, 'platform.agent.kind': row.kind },
      }));
      this.expiring = [{ value: rows.reduce((sum, row) => sum + Number(row.expiring), 0) }];
    } catch (err) {
      this.options.logger.warn({ err }, 'could not count agent-pool entries for metrics');
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    for (const stop of this.stopObserving.splice(0)) stop();
  }
}
