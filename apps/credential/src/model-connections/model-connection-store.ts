import type pg from 'pg';
import { appendAudit } from '../audit-log.js';
import type { CredentialDatabase } from '../credential-database.js';
import type { AuditActor } from '../credential-store.js';
import { openRecord, sealRecord, type RecordIdentity } from '../crypto/envelope.js';
import { CredentialDecryptError } from '../crypto/crypto-errors.js';
import type { KeyProvider } from '../crypto/key-provider.js';
import {
  MODEL_CONNECTION_KEY_SERVICE,
  modelConnectionExists,
  modelConnectionNotFound,
  modelConnectionQuotaExceeded,
  modelConnectionVersionConflict,
} from './model-connection-errors.js';

/** A model connection without its key. */
export interface ModelConnectionInfo {
  name: string;
  baseUrl: string;
  models: string[];
  keyPreview: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a create writes (already validated, the URL through the egress guard). */
interface NewModelConnection {
  tenantId: string;
  name: string;
  baseUrl: string;
  apiKey: string;
  models: string[];
}

/** What an update changes; absent fields stay. */
interface ModelConnectionChanges {
  baseUrl?: string;
  apiKey?: string;
  models?: string[];
  expectedVersion?: number;
}

/** A tenant's connection quota (its tier's `modelConnections`). */
export interface ModelConnectionQuota {
  max: number;
  tier: string;
}

interface InfoRow {
  name: string;
  base_url: string;
  models: string[];
  key_preview: string;
  version: string;
  created_at: Date;
  updated_at: Date;
}

const INFO_COLUMNS = 'name, base_url, models, key_preview, version, created_at, updated_at';

function toInfo(row: InfoRow): ModelConnectionInfo {
  return {
    name: row.name,
    baseUrl: row.base_url,
    models: row.models,
    keyPreview: row.key_preview,
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Keys shorter than this show no characters at all: four of a short key would give too much of it away. */
const PREVIEW_MIN_KEY_LENGTH = 12;

/** What list and get show of a key: its last 4 characters. */
function keyPreview(apiKey: string): string {
  return apiKey.length >= PREVIEW_MIN_KEY_LENGTH ? `…${apiKey.slice(-4)}` : '…';
}

const keyIdentity = (tenantId: string, name: string, version: number): RecordIdentity => ({
  tenantId,
  service: MODEL_CONNECTION_KEY_SERVICE,
  account: name,
  version,
});

type Outcome<T> = { kind: 'ok'; value: T } | { kind: 'refused'; error: Error };

/**
 * Model connections in Postgres (migration 0005): the connection's row in `model_connections`,
 * its key sealed in a `credentials` row (service `@model-connection`, account = the name), both
 * written in one transaction as the tenant (RLS), each write and read audited in the same
 * transaction. A refusal's audit row commits; the refusal is thrown after.
 */
export class ModelConnectionStore {
  constructor(
    private readonly db: CredentialDatabase,
    private readonly keys: KeyProvider,
  ) {}

  async create(
    input: NewModelConnection,
    actor: AuditActor,
    quota: ModelConnectionQuota,
  ): Promise<ModelConnectionInfo> {
    const { tenantId, name } = input;
    return this.settle(
      this.db.asTenant(tenantId, async (client): Promise<Outcome<ModelConnectionInfo>> => {
        const audit = (outcome: string) => this.audit(client, tenantId, name, 'save', outcome, actor);
        // Serializes the tenant's creates, so two at the limit cannot both pass.
        await client.query({
          name: 'model-connection-quota-lock',
          text: "SELECT pg_advisory_xact_lock(hashtext('model-connection-quota'), hashtext($1))",
          values: [tenantId],
        });
        const { rows: counted } = await client.query<{ n: string }>({
          name: 'model-connection-count',
          text: 'SELECT count(*) AS n FROM model_connections WHERE tenant_id = $1',
          values: [tenantId],
        });
        if (Number(counted[0]!.n) >= quota.max) {
          await audit('quota_exceeded');
          return { kind: 'refused', error: modelConnectionQuotaExceeded(quota) };
        }
        const { rows } = await client.query<InfoRow>({
          name: 'model-connection-insert',
          text: `INSERT INTO model_connections (tenant_id, name, base_url, models, key_preview, version)
                 VALUES ($1, $2, $3, $4, $5, 1) ON CONFLICT DO NOTHING RETURNING ${INFO_COLUMNS}`,
          values: [tenantId, name, input.baseUrl, input.models, keyPreview(input.apiKey)],
        });
        if (rows.length === 0) {
          await audit('already_exists');
          return { kind: 'refused', error: modelConnectionExists(name) };
        }
        // A key row left by nothing we know of would make the insert below fail; none survives a delete.
        await this.writeKey(client, tenantId, name, input.apiKey, 0);
        await audit('ok');
        return { kind: 'ok', value: toInfo(rows[0]!) };
      }),
    );
  }

  async update(
    tenantId: string,
    name: string,
    changes: ModelConnectionChanges,
    actor: AuditActor,
  ): Promise<ModelConnectionInfo> {
    return this.settle(
      this.db.asTenant(tenantId, async (client): Promise<Outcome<ModelConnectionInfo>> => {
        const audit = (outcome: string) => this.audit(client, tenantId, name, 'save', outcome, actor);
        const { rows: locked } = await client.query<{ version: string }>({
          name: 'model-connection-lock',
          text: 'SELECT version FROM model_connections WHERE tenant_id = $1 AND name = $2 FOR UPDATE',
          values: [tenantId, name],
        });
        if (!locked[0]) {
          await audit('not_found');
          return { kind: 'refused', error: modelConnectionNotFound(name) };
        }
        const current = Number(locked[0].version);
        if (changes.expectedVersion !== undefined && changes.expectedVersion !== current) {
          await audit('version_conflict');
          return { kind: 'refused', error: modelConnectionVersionConflict(name, changes.expectedVersion, current) };
        }
        if (changes.apiKey !== undefined) {
          const { rows: keyRows } = await client.query<{ version: string }>({
            name: 'model-connection-key-lock',
            text: 'SELECT version FROM credentials WHERE tenant_id = $1 AND service = $2 AND account = $3 FOR UPDATE',
            values: [tenantId, MODEL_CONNECTION_KEY_SERVICE, name],
          });
          await this.writeKey(client, tenantId, name, changes.apiKey, keyRows[0] ? Number(keyRows[0].version) : 0);
        }
        const { rows } = await client.query<InfoRow>({
          name: 'model-connection-update',
          text: `UPDATE model_connections SET version = version + 1, updated_at = now(),
                   base_url = coalesce($3, base_url), models = coalesce($4, models), key_preview = coalesce($5, key_preview)
                 WHERE tenant_id = $1 AND name = $2 RETURNING ${INFO_COLUMNS}`,
          values: [
            tenantId,
            name,
            changes.baseUrl ?? null,
            changes.models ?? null,
            changes.apiKey === undefined ? null : keyPreview(changes.apiKey),
          ],
        });
        await audit('ok');
        return { kind: 'ok', value: toInfo(rows[0]!) };
      }),
    );
  }

  async get(tenantId: string, name: string, actor: AuditActor): Promise<ModelConnectionInfo> {
    return this.settle(
      this.db.asTenant(
        tenantId,
        async (client): Promise<Outcome<ModelConnectionInfo>> => {
          const { rows } = await client.query<InfoRow>({
            name: 'model-connection-get',
            text: `SELECT ${INFO_COLUMNS} FROM model_connections WHERE tenant_id = $1 AND name = $2`,
            values: [tenantId, name],
          });
          await this.audit(client, tenantId, name, 'list', rows[0] ? 'ok' : 'not_found', actor);
          return rows[0]
            ? { kind: 'ok', value: toInfo(rows[0]) }
            : { kind: 'refused', error: modelConnectionNotFound(name) };
        },
        { read: true },
      ),
    );
  }

  async list(tenantId: string, actor: AuditActor): Promise<ModelConnectionInfo[]> {
    return this.db.asTenant(
      tenantId,
      async (client) => {
        const { rows } = await client.query<InfoRow>({
          name: 'model-connection-list',
          text: `SELECT ${INFO_COLUMNS} FROM model_connections WHERE tenant_id = $1 ORDER BY name`,
          values: [tenantId],
        });
        await this.audit(client, tenantId, '', 'list', 'ok', actor);
        return rows.map(toInfo);
      },
      { read: true },
    );
  }

  async delete(tenantId: string, name: string, actor: AuditActor): Promise<void> {
    await this.settle(
      this.db.asTenant(tenantId, async (client): Promise<Outcome<undefined>> => {
        const { rowCount } = await client.query({
          name: 'model-connection-delete',
          text: 'DELETE FROM model_connections WHERE tenant_id = $1 AND name = $2',
          values: [tenantId, name],
        });
        await client.query({
          name: 'model-connection-key-delete',
          text: 'DELETE FROM credentials WHERE tenant_id = $1 AND service = $2 AND account = $3',
          values: [tenantId, MODEL_CONNECTION_KEY_SERVICE, name],
        });
        await this.audit(client, tenantId, name, 'delete', rowCount ? 'ok' : 'not_found', actor);
        return rowCount ? { kind: 'ok', value: undefined } : { kind: 'refused', error: modelConnectionNotFound(name) };
      }),
    );
  }

  /** The connection and its key, decrypted; audited as a `get` of the key. */
  async resolve(
    tenantId: string,
    name: string,
    actor: AuditActor,
  ): Promise<{ info: ModelConnectionInfo; apiKey: string }> {
    return this.settle(
      this.db.asTenant(
        tenantId,
        async (client): Promise<Outcome<{ info: ModelConnectionInfo; apiKey: string }>> => {
          const audit = (outcome: string) => this.audit(client, tenantId, name, 'get', outcome, actor);
          const { rows } = await client.query<
            InfoRow & { key_version: string; key_id: string; wrapped_key: Buffer; ciphertext: Buffer }
          >({
            name: 'model-connection-resolve',
            text: `SELECT m.name, m.base_url, m.models, m.key_preview, m.version, m.created_at, m.updated_at,
                          c.version AS key_version, c.key_id, c.wrapped_key, c.ciphertext
                     FROM model_connections m
                     JOIN credentials c ON c.tenant_id = m.tenant_id AND c.service = $3 AND c.account = m.name
                    WHERE m.tenant_id = $1 AND m.name = $2`,
            values: [tenantId, name, MODEL_CONNECTION_KEY_SERVICE],
          });
          const row = rows[0];
          if (!row) {
            await audit('not_found');
            return { kind: 'refused', error: modelConnectionNotFound(name) };
          }
          let key: Buffer;
          try {
            key = await openRecord(this.keys, keyIdentity(tenantId, name, Number(row.key_version)), {
              ciphertext: row.ciphertext,
              wrappedKey: { keyId: row.key_id, bytes: row.wrapped_key },
            });
          } catch (err) {
            await audit(err instanceof CredentialDecryptError ? 'decrypt_failed' : 'key_unavailable');
            return { kind: 'refused', error: err as Error };
          }
          await audit('ok');
          return { kind: 'ok', value: { info: toInfo(row), apiKey: key.toString('utf8') } };
        },
        { read: true },
      ),
    );
  }

  /** Seals the key into its `credentials` row: inserted at version 1, or replacing version `current`. */
  private async writeKey(
    client: pg.PoolClient,
    tenantId: string,
    name: string,
    apiKey: string,
    current: number,
  ): Promise<void> {
    const identity = keyIdentity(tenantId, name, current + 1);
    const sealed = await sealRecord(this.keys, identity, Buffer.from(apiKey, 'utf8'));
    const values = [
      tenantId,
      MODEL_CONNECTION_KEY_SERVICE,
      name,
      identity.version,
      sealed.wrappedKey.keyId,
      sealed.wrappedKey.bytes,
      sealed.ciphertext,
    ];
    await client.query(
      current === 0
        ? {
            name: 'model-connection-key-insert',
            text: 'INSERT INTO credentials (tenant_id, service, account, version, key_id, wrapped_key, ciphertext) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            values,
          }
        : {
            name: 'model-connection-key-update',
            text: `UPDATE credentials SET version = $4, key_id = $5, wrapped_key = $6, ciphertext = $7, updated_at = now()
                   WHERE tenant_id = $1 AND service = $2 AND account = $3`,
            values,
          },
    );
  }

  private audit(
    client: pg.PoolClient,
    tenantId: string,
    name: string,
    action: 'save' | 'get' | 'list' | 'delete',
    outcome: string,
    actor: AuditActor,
  ): Promise<void> {
    return appendAudit(client, tenantId, {
      ...actor,
      service: MODEL_CONNECTION_KEY_SERVICE,
      account: name,
      action,
      outcome,
    });
  }

  private async settle<T>(outcome: Promise<Outcome<T>>): Promise<T> {
    const settled = await outcome;
    if (settled.kind === 'refused') throw settled.error;
    return settled.value;
  }
}
