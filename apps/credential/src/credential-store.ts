import type pg from 'pg';
import type { AuditEntry } from './audit-log.js';
import { appendAudit } from './audit-log.js';
import type { CredentialDatabase } from './credential-database.js';
import { openRecord, sealRecord, type RecordIdentity } from './crypto/envelope.js';
import { CredentialDecryptError } from './crypto/crypto-errors.js';
import type { KeyProvider } from './crypto/key-provider.js';
import { credentialNotFound, versionConflict } from './credential-errors.js';

/** A credential without its secret. */
export interface CredentialInfo {
  service: string;
  account: string;
  version: number;
  keyId: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface CredentialKey {
  tenantId: string;
  service: string;
  account: string;
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
  return { service: row.service, account: row.account, version: Number(row.version), keyId: row.key_id, createdAt: row.created_at, updatedAt: row.updated_at };
}

/**
 * Encrypted credentials in Postgres. Every operation runs as the tenant (RLS) and writes its audit
 * row in the same transaction, so no read or write happens without one. Failed attempts
 * (not found, conflict, decrypt failure) are audited too.
 */
export class CredentialStore {
  constructor(
    private readonly db: CredentialDatabase,
    private readonly keys: KeyProvider,
  ) {}

  /** Creates or replaces; `expectedVersion` 0 = create only, n = replace version n only. */
  async save(key: CredentialKey, secret: Buffer, expectedVersion: number | undefined, actor: AuditActor): Promise<CredentialInfo> {
    for (;;) {
      const outcome = await this.db.asTenant(key.tenantId, async (client) => {
        const { rows } = await client.query<{ version: string }>({
          name: 'credential-lock',
          text: 'SELECT version FROM credentials WHERE tenant_id = $1 AND service = $2 AND account = $3 FOR UPDATE',
          values: [key.tenantId, key.service, key.account],
        });
        const current = rows[0] ? Number(rows[0].version) : 0;
        if (expectedVersion !== undefined && expectedVersion !== current) {
          await appendAudit(client, key.tenantId, { ...actor, service: key.service, account: key.account, action: 'save', outcome: 'version_conflict' });
          return { kind: 'conflict', current } as const;
        }
        const identity: RecordIdentity = { ...key, version: current + 1 };
        const sealed = await sealRecord(this.keys, identity, secret);
        const values = [key.tenantId, key.service, key.account, identity.version, sealed.wrappedKey.keyId, sealed.wrappedKey.bytes, sealed.ciphertext];
        const written = current === 0
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
        await appendAudit(client, key.tenantId, { ...actor, service: key.service, account: key.account, action: 'save', outcome: 'ok' });
        return { kind: 'saved', info: toInfo(written.rows[0]!) } as const;
      });
      if (outcome.kind === 'saved') return outcome.info;
      if (outcome.kind === 'conflict') throw versionConflict(key, expectedVersion ?? 0, outcome.current);
    }
  }

  /** The decrypted secret and its info; a row that fails authentication returns nothing. */
  async get(key: CredentialKey, actor: AuditActor): Promise<{ info: CredentialInfo; secret: Buffer }> {
    const outcome = await this.db.asTenant(key.tenantId, async (client) => {
      const { rows } = await client.query<InfoRow & { wrapped_key: Buffer; ciphertext: Buffer }>({
        name: 'credential-get',
        text: `SELECT ${INFO_COLUMNS}, wrapped_key, ciphertext FROM credentials WHERE tenant_id = $1 AND service = $2 AND account = $3`,
        values: [key.tenantId, key.service, key.account],
      });
      const row = rows[0];
      const audit = (outcome: string) => appendAudit(client, key.tenantId, { ...actor, service: key.service, account: key.account, action: 'get', outcome });
      if (!row) {
        await audit('not_found');
        return { missing: true } as const;
      }
      const info = toInfo(row);
      try {
        const secret = await openRecord(this.keys, { ...key, version: info.version }, { ciphertext: row.ciphertext, wrappedKey: { keyId: row.key_id, bytes: row.wrapped_key } });
        await audit('ok');
        return { info, secret } as const;
      } catch (err) {
        await audit(err instanceof CredentialDecryptError ? 'decrypt_failed' : 'key_unavailable');
        return { failed: err } as const;
      }
    }, { read: true });
    if ('missing' in outcome) throw credentialNotFound(key);
    if ('failed' in outcome) throw outcome.failed;
    return outcome;
  }

  async list(tenantId: string, service: string | undefined, actor: AuditActor): Promise<CredentialInfo[]> {
    return this.db.asTenant(tenantId, async (client) => {
      const { rows } = await client.query<InfoRow>({
        name: 'credential-list',
        text: `SELECT ${INFO_COLUMNS} FROM credentials WHERE tenant_id = $1 AND ($2::text IS NULL OR service = $2) ORDER BY service, account`,
        values: [tenantId, service ?? null],
      });
      await appendAudit(client, tenantId, { ...actor, service: service ?? '', account: '', action: 'list', outcome: 'ok' });
      return rows.map(toInfo);
    }, { read: true });
  }

  async delete(key: CredentialKey, actor: AuditActor): Promise<void> {
    const deleted = await this.db.asTenant(key.tenantId, async (client) => {
      const { rowCount } = await client.query({
        name: 'credential-delete',
        text: 'DELETE FROM credentials WHERE tenant_id = $1 AND service = $2 AND account = $3',
        values: [key.tenantId, key.service, key.account],
      });
      await appendAudit(client, key.tenantId, { ...actor, service: key.service, account: key.account, action: 'delete', outcome: rowCount ? 'ok' : 'not_found' });
      return Boolean(rowCount);
    });
    if (!deleted) throw credentialNotFound(key);
  }

  /** Records an attempt refused before it reached the store (a grant that does not cover it). */
  async auditDenied(key: CredentialKey, action: AuditEntry['action'], actor: AuditActor): Promise<void> {
    await this.db.asTenant(key.tenantId, (client: pg.PoolClient) => appendAudit(client, key.tenantId, { ...actor, service: key.service, account: key.account, action, outcome: 'denied' }));
  }
}
