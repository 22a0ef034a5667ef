import { redactUrl } from '@platform/egress';
import type { orchestratorV1 } from '@platform/proto';
import { newWebhookSecret, PgWebhookOutbox } from '@platform/webhooks';
import type pg from 'pg';

/** A tenant's run webhook settings (migrations/0019). */
export interface TenantWebhookSettings {
  url: string;
  secret: string;
  updatedAt: Date;
}

interface SettingsRow {
  url: string | null;
  secret: string;
  updated_at: Date;
}

interface DeliveryRow {
  delivery_id: string;
  run_id: string;
  run_status: string;
  url: string;
  status: string;
  attempts: number;
  last_error: string;
  created_at: Date;
  due_at: Date;
  delivered_at: Date | null;
}

function settingsOf(row: SettingsRow): TenantWebhookSettings {
  return { url: row.url ?? '', secret: row.secret, updatedAt: row.updated_at };
}

/**
 * The orchestrator's run webhook tables: the tenants' settings (default URL, signing secret), each
 * run's target (written before the run), and the outbox of deliveries that the run's end writes
 * (the trigger in migrations/0019) and libs/webhooks' dispatcher delivers. Every read is scoped
 * by tenant.
 */
export class RunWebhookStore {
  constructor(private readonly db: pg.Pool) {}

  /** The outbox the dispatcher claims from; each delivery signed with its tenant's secret. */
  outbox(): PgWebhookOutbox {
    return new PgWebhookOutbox(this.db, {
      table: 'run_webhook_deliveries',
      idColumn: 'delivery_id',
      secretSql: '(SELECT s.secret FROM tenant_webhook_settings s WHERE s.tenant_id = n.tenant_id)',
    });
  }

  /** The tenant's settings, its secret made on first read. */
  async settings(tenantId: string): Promise<TenantWebhookSettings> {
    // Two first reads racing: the one whose insert lost may see neither row in its snapshot; it reads again.
    return (await this.readOrMake(tenantId)) ?? (await this.readOrMake(tenantId))!;
  }

  private async readOrMake(tenantId: string): Promise<TenantWebhookSettings | undefined> {
    const { rows } = await this.db.query<SettingsRow>(
      `WITH made AS (
         INSERT INTO tenant_webhook_settings (tenant_id, secret) VALUES ($1, $2)
         ON CONFLICT (tenant_id) DO NOTHING RETURNING url, secret, updated_at)
       SELECT url, secret, updated_at FROM made
       UNION ALL SELECT url, secret, updated_at FROM tenant_webhook_settings WHERE tenant_id = $1
       LIMIT 1`,
      [tenantId, newWebhookSecret()],
    );
    return rows[0] ? settingsOf(rows[0]) : undefined;
  }

  /** Sets (or clears, with '') the default URL when given, and rotates the secret when asked. */
  async update(tenantId: string, change: { url?: string; rotateSecret: boolean }): Promise<TenantWebhookSettings> {
    await this.settings(tenantId);
    const { rows } = await this.db.query<SettingsRow>(
      `UPDATE tenant_webhook_settings SET
         url = CASE WHEN $2::boolean THEN nullif($3, '') ELSE url END,
         secret = CASE WHEN $4::boolean THEN $5 ELSE secret END,
         updated_at = now()
       WHERE tenant_id = $1 RETURNING url, secret, updated_at`,
      [tenantId, change.url !== undefined, change.url ?? '', change.rotateSecret, newWebhookSecret()],
    );
    return settingsOf(rows[0]!);
  }

  /**
   * Where the run's end goes, decided in one statement: the message's URL (checked), else the
   * conversation's, else the tenant's default; nothing when none is set. Written before the run,
   * and the tenant's secret made then.
   */
  async recordTarget(tenantId: string, conversationId: string, runId: string, messageUrl: string | undefined) {
    const { rowCount } = await this.db.query(
      `INSERT INTO run_webhook_targets (run_id, tenant_id, url)
       SELECT $1, $2, target.url FROM (SELECT coalesce($3::text,
           (SELECT c.webhook_url FROM conversations c WHERE c.tenant_id = $2 AND c.conversation_id = $4),
           (SELECT s.url FROM tenant_webhook_settings s WHERE s.tenant_id = $2)) AS url) target
       WHERE target.url IS NOT NULL
       ON CONFLICT (run_id) DO NOTHING`,
      [runId, tenantId, messageUrl ?? null, conversationId],
    );
    if (rowCount) await this.settings(tenantId);
  }

  /** A run's deliveries, oldest first, their URLs redacted (no user name, password or query value). */
  async deliveries(tenantId: string, runId: string): Promise<orchestratorV1.RunWebhookDelivery[]> {
    const { rows } = await this.db.query<DeliveryRow>(
      `SELECT delivery_id, run_id, run_status, url, status, attempts, last_error, created_at, due_at, delivered_at
       FROM run_webhook_deliveries WHERE tenant_id = $1 AND run_id = $2 ORDER BY created_at, delivery_id`,
      [tenantId, runId],
    );
    return rows.map((r) => ({
      deliveryId: r.delivery_id,
      runId: r.run_id,
      runStatus: r.run_status,
      url: redactUrl(r.url),
      status: r.status,
      attempts: r.attempts,
      lastError: r.last_error,
      createdAt: r.created_at,
      nextAttemptAt: r.status === 'pending' ? r.due_at : undefined,
      deliveredAt: r.delivered_at ?? undefined,
    }));
  }

  /** Drops deliveries and targets older than the retention (a pending one too: it is past any retry). */
  async prune(olderThanMs: number): Promise<void> {
    const before = new Date(olderThanMs);
    await this.db.query(`DELETE FROM run_webhook_deliveries WHERE created_at < $1 AND status <> 'sending'`, [before]);
    await this.db.query(
      `DELETE FROM run_webhook_targets t WHERE t.created_at < $1
       AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.run_id = t.run_id AND r.status IN ('queued', 'running'))`,
      [before],
    );
  }
}
