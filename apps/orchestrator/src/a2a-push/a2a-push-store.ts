import { compositeKey, QUOTA_NAMES } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, quotaExceeded } from '@platform/service-kit';
import { PgWebhookOutbox } from '@platform/webhooks';
import type pg from 'pg';
import { ErrorCodes } from '../error-codes.js';

/** Configs one task may have. */
const MAX_CONFIGS_PER_TASK = 10;

interface ConfigRow {
  tenant_id: string;
  task_id: string;
  config_id: string;
  url: string;
  token: string;
  auth_scheme: string;
  created_at: Date;
}

/** A config as answers give it: its credentials are never read back. */
function configOf(row: ConfigRow): orchestratorV1.A2aPushConfig {
  return {
    tenantId: row.tenant_id,
    taskId: row.task_id,
    configId: row.config_id,
    url: row.url,
    token: row.token,
    authScheme: row.auth_scheme,
    authCredentials: '',
    createdAt: row.created_at,
  };
}

const COLUMNS = 'tenant_id, task_id, config_id, url, token, auth_scheme, created_at';

/** The quota a write counts against: the tenant's tier's, with its name for the refusal. */
export interface PushQuota {
  tier: string;
  limit: number;
}

/**
 * The tenant's A2A push notification configs (migrations/0028) and the outbox a task's state
 * changes write (the trigger there), which libs/webhooks' dispatcher delivers signed with the
 * tenant's run webhook secret. Every read and write is scoped by tenant.
 */
export class A2aPushStore {
  constructor(private readonly db: pg.Pool) {}

  outbox(): PgWebhookOutbox {
    return new PgWebhookOutbox(this.db, {
      table: 'a2a_push_deliveries',
      idColumn: 'delivery_id',
      secretSql: '(SELECT s.secret FROM tenant_webhook_settings s WHERE s.tenant_id = n.tenant_id)',
      headersSql: 'n.headers',
    });
  }

  /**
   * Stores a config (a config id the task has already is replaced), counted against the tenant's
   * quota and the task's, under the tenant's lock so two writes cannot both pass the count.
   */
  async put(config: orchestratorV1.A2aPushConfig, quota: PushQuota): Promise<orchestratorV1.A2aPushConfig> {
    const client = await this.db.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        compositeKey('a2a-push-configs', config.tenantId),
      ]);
      const { rows: counts } = await client.query<{ tenant: string; task: string; replaced: string }>(
        `SELECT count(*) AS tenant, count(*) FILTER (WHERE task_id = $2) AS task,
                count(*) FILTER (WHERE task_id = $2 AND config_id = $3) AS replaced
         FROM a2a_push_configs WHERE tenant_id = $1`,
        [config.tenantId, config.taskId, config.configId],
      );
      const { tenant, task, replaced } = counts[0]!;
      if (replaced === '0' && Number(tenant) >= quota.limit)
        throw quotaExceeded({
          quota: QUOTA_NAMES.a2aPushConfigs,
          limit: quota.limit,
          tier: quota.tier,
          message: `QUOTA_EXCEEDED: the tenant has its tier's ${quota.limit} A2A push notification configs; delete one first`,
        });
      if (replaced === '0' && Number(task) >= MAX_CONFIGS_PER_TASK)
        throw quotaExceeded({
          quota: QUOTA_NAMES.a2aPushConfigs,
          limit: MAX_CONFIGS_PER_TASK,
          tier: quota.tier,
          message: `QUOTA_EXCEEDED: a task has at most ${MAX_CONFIGS_PER_TASK} push notification configs`,
        });
      const { rows } = await client.query<ConfigRow>(
        `INSERT INTO a2a_push_configs (tenant_id, task_id, config_id, url, token, auth_scheme, auth_credentials)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (tenant_id, task_id, config_id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token,
           auth_scheme = EXCLUDED.auth_scheme, auth_credentials = EXCLUDED.auth_credentials, created_at = now()
         RETURNING ${COLUMNS}`,
        [
          config.tenantId,
          config.taskId,
          config.configId,
          config.url,
          config.token,
          config.authScheme,
          config.authCredentials,
        ],
      );
      await client.query('COMMIT');
      return configOf(rows[0]!);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async get(tenantId: string, taskId: string, configId: string): Promise<orchestratorV1.A2aPushConfig> {
    const { rows } = await this.db.query<ConfigRow>(
      `SELECT ${COLUMNS} FROM a2a_push_configs WHERE tenant_id = $1 AND task_id = $2 AND config_id = $3`,
      [tenantId, taskId, configId],
    );
    if (!rows[0]) throw notFound(configId);
    return configOf(rows[0]);
  }

  async list(tenantId: string, taskId: string): Promise<orchestratorV1.A2aPushConfig[]> {
    const { rows } = await this.db.query<ConfigRow>(
      `SELECT ${COLUMNS} FROM a2a_push_configs WHERE tenant_id = $1 AND task_id = $2 ORDER BY created_at, config_id`,
      [tenantId, taskId],
    );
    return rows.map(configOf);
  }

  async delete(tenantId: string, taskId: string, configId: string): Promise<void> {
    const { rowCount } = await this.db.query(
      'DELETE FROM a2a_push_configs WHERE tenant_id = $1 AND task_id = $2 AND config_id = $3',
      [tenantId, taskId, configId],
    );
    if (!rowCount) throw notFound(configId);
  }

  /** Drops deliveries older than the retention, and configs of tasks whose runs are all older and finished. */
  async prune(olderThanMs: number): Promise<void> {
    const before = new Date(olderThanMs);
    await this.db.query(`DELETE FROM a2a_push_deliveries WHERE created_at < $1 AND status <> 'sending'`, [before]);
    await this.db.query(
      `DELETE FROM a2a_push_configs c WHERE c.created_at < $1
       AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.tenant_id = c.tenant_id
         AND (r.run_id = c.task_id OR r.run_id LIKE c.task_id || '-c%')
         AND (r.status IN ('queued', 'running', 'waiting') OR r.created_at >= $1))`,
      [before],
    );
  }
}

function notFound(configId: string): Error {
  return errors.notFound(ErrorCodes.A2A_PUSH_CONFIG_NOT_FOUND, `no push notification config '${configId}'`);
}
