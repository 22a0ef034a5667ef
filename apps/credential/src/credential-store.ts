import type pg from 'pg';
import type { AuditEntry } from './audit-log.js';
import { appendAudit } from './audit-log.js';
import type { CredentialDatabase } from './credential-database.js';
import type { CredentialKey } from './credential-key.js';
import { openRecord, sealRecord, type RecordIdentity } from './crypto/envelope.js';
import { CredentialDecryptError } from './crypto/crypto-errors.js';
import type { KeyProvider } from './crypto/key-provider.js';
import { credentialNotFound, versionConflict } from './credential-errors.js';
import type { ReadAuditBatcher } from './read-audit-batcher.js';
import { checkCredentialQuota, type CredentialQuota } from './credential-quota.js';

/** A credential without its secret. */
export interface CredentialInfo {
  service: string;
  account: string;
  version: number;
  keyId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Who acts, recorded with every audit row. */
export type AuditActor = Omit<AuditEntry, 'service' | 'account' | 'action' | 'outcome'>;

interface InfoRow {
  service: string;
  account: string;
  version: string;
  key_id: string;
  created_at: Date;
  updated_at: Date;
}

const INFO_COLUMNS = 'service, account, version, key_id, created_at, updated_at';

function toInfo(row: InfoRow): CredentialInfo {
  return {
    service: row.service,
    account: row.account,
    version: Number(row.version),
    keyId: row.key_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Encrypted credentials in Postgres. Every operation runs as the tenant (RLS) and is audited:
 * saves, deletes, lists and refusals in the same transaction; a Get through the read-audit
 * batcher (see `get`). Failed attempts (not found, conflict, decrypt failure) are audited too.
 */
export class CredentialStore {
  constructor(
    private readonly db: CredentialDatabase,
    private readonly keys: KeyProvider,
    private readonly readAudit: ReadAuditBatcher,
  ) {}

  /**
   * Creates or replaces; `expectedVersion` 0 = create only, n = replace version n only. The
   * tenant's records and secret bytes, with this one, must stay within `quota`: the tenant's saves
   * are serialized (a transaction lock) so two at the limit cannot both pass.
   */
  async save(
    key: CredentialKey,
    secret: Buffer,
    expectedVersion: number | undefined,
    actor: AuditActor,
    quota: CredentialQuota,
  ): Promise<CredentialInfo> {
    for (;;) {
      const outcome = await this.audited(key.tenantId, async (client) => {
        const refusal = await checkCredentialQuota(client, key, secret.length, quota);
        if (refusal) {
          await appendAudit(client, key.tenantId, {
            ...actor,
            service: key.service,
            account: key.account,
            action: 'save',
            outcome: 'quota_exceeded',
          });
          return { kind: 'refused', error: refusal } as const;
        }
        const { rows } = await client.query<{ version: string }>({
          name: 'credential-lock',
          text: 'SELECT version FROM credentials WHERE tenant_id = $1 AND service = $2 AND account = $3 FOR UPDATE',
          values: [key.tenantId, key.service, key.account],
        });
        const current = rows[0] ? Number(rows[0].version) : 0;
        if (expectedVersion !== undefined && expectedVersion !== current) {
          await appendAudit(client, key.tenantId, {
            ...actor,
            service: key.service,
            account: key.account,
            action: 'save',
            outcome: 'version_conflict',
          });
          return { kind: 'conflict', current } as const;
        }
        const identity: RecordIdentity = { ...key, version: current + 1 };
        const sealed = await sealRecord(this.keys, identity, secret);
        const values = [
          key.tenantId,
          key.service,
          key.account,
          identity.version,
          sealed.wrappedKey.keyId,
          sealed.wrappedKey.bytes,
          sealed.ciphertext,
        ];
        const written =
          current === 0
            ? await client.query<InfoRow>({
                name: 'credential-insert',
                text: `INSERT INTO credentials (tenant_id, service, account, version, key_id, wrapped_key, ciphertext) VALUES ($1, $2, $3, $4, $5, $6, $7)
                     ON CONFLICT DO NOTHING RETURNING ${INFO_COLUMNS}`,
                values,
              })
            : await client.query<InfoRow>({
                name: 'credential-update',
                text: `UPDATE credentials SET version = $4, key_id = $5, wrapped_key = $6, ciphertext = $7, updated_at = now()
                     WHERE tenant_id = $1 AND service = $2 AND account = $3 RETURNING ${INFO_COLUMNS}`,
                values,
              });
        // A concurrent first save inserted the row after our lock found none: go round again and lock it.
        if (written.rows.length === 0) return { kind: 'retry' } as const;
        await appendAudit(client, key.tenantId, {
          ...actor,
          service: key.service,
          account: key.account,
          action: 'save',
          outcome: 'ok',
        });
        return { kind: 'saved', info: toInfo(written.rows[0]!) } as const;
      });
      if (outcome.kind === 'saved') return outcome.info;
      if (outcome.kind === 'refused') throw outcome.error;
      if (outcome.kind === 'conflict') throw versionConflict(key, expectedVersion ?? 0, outcome.current);
    }
  }

  /**
   * The decrypted secret and its info; a row that fails authentication returns nothing. One round
   * trip: `credential_read` (migration 0002) drops to the runtime role and sets the tenant for its
   * own implicit transaction, then selects under RLS. The audit row goes to the read-audit batcher
   * (committed within its window, or before this returns when read audits are durable).
   */
  async get(key: CredentialKey, actor: AuditActor): Promise<{ info: CredentialInfo; secret: Buffer }> {
    const { rows } = await this.db.pool.query<InfoRow & { wrapped_key: Buffer; ciphertext: Buffer }>({
      name: 'credential-read',
      text: `SELECT ${INFO_COLUMNS}, wrapped_key, ciphertext FROM credential_read($1, $2, $3)`,
      values: [key.tenantId, key.service, key.account],
    });
    const row = rows[0];
    const audit = (outcome: string) =>
      this.readAudit.record(key.tenantId, {
        ...actor,
        service: key.service,
        account: key.account,
        action: 'get',
        outcome,
      });
    if (!row) {
      await audit('not_found');
      throw credentialNotFound(key);
    }
    const info = toInfo(row);
    let secret: Buffer;
    try {
      secret = await openRecord(
        this.keys,
        { ...key, version: info.version },
        { ciphertext: row.ciphertext, wrappedKey: { keyId: row.key_id, bytes: row.wrapped_key } },
      );
    } catch (err) {
      await audit(err instanceof CredentialDecryptError ? 'decrypt_failed' : 'key_unavailable');
      throw err;
    }
    await audit('ok');
    return { info, secret };
  }

  async list(tenantId: string, service: string | undefined, actor: AuditActor): Promise<CredentialInfo[]> {
    return this.audited(
      tenantId,
      async (client) => {
        const { rows } = await client.query<InfoRow>({
          name: 'credential-list',
          text: `SELECT ${INFO_COLUMNS} FROM credentials WHERE tenant_id = $1 AND service NOT LIKE '@%' AND ($2::text IS NULL OR service = $2) ORDER BY service, account`,
          values: [tenantId, service ?? null],
        });
        await appendAudit(client, tenantId, {
          ...actor,
          service: service ?? '',
          account: '',
          action: 'list',
          outcome: 'ok',
        });
        return rows.map(toInfo);
      },
      { read: true },
    );
  }

  async delete(key: CredentialKey, actor: AuditActor): Promise<void> {
    const deleted = await this.audited(key.tenantId, async (client) => {
      const { rowCount } = await client.query({
        name: 'credential-delete',
        text: 'DELETE FROM credentials WHERE tenant_id = $1 AND service = $2 AND account = $3',
        values: [key.tenantId, key.service, key.account],
      });
      await appendAudit(client, key.tenantId, {
        ...actor,
        service: key.service,
        account: key.account,
        action: 'delete',
        outcome: rowCount ? 'ok' : 'not_found',
      });
      return Boolean(rowCount);
    });
    if (!deleted) throw credentialNotFound(key);
  }

  /** Records an attempt refused before it reached the store (a grant that does not cover it). */
  async auditDenied(key: CredentialKey, action: AuditEntry['action'], actor: AuditActor): Promise<void> {
    await this.audited(key.tenantId, (client: pg.PoolClient) =>
      appendAudit(client, key.tenantId, {
        ...actor,
        service: key.service,
        account: key.account,
        action,
        outcome: 'denied',
      }),
    );
  }

  /**
   * A tenant transaction that appends its own audit row, after the read audit rows this replica
   * has queued: the trail keeps the order in which this replica answered (a save after a Get is
   * listed after it). Queued rows that cannot be written now stay queued; the operation goes on.
   */
  private async audited<T>(
    tenantId: string,
    fn: (client: pg.PoolClient) => Promise<T>,
    options: { read?: boolean } = {},
  ): Promise<T> {
    await this.readAudit.flush().catch(() => undefined);
    return this.db.asTenant(tenantId, fn, options);
  }
}
