import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { QUOTA_NAMES, type TenantRole } from '@platform/contracts';
import { PlatformError, errors, quotaExceeded } from '@platform/service-kit';
import type pg from 'pg';
import type { CredentialDatabase } from './credential-database.js';
import { ErrorCodes } from './error-codes.js';

/** Every key starts with it; the api tells a key from a JWT by it (docs/access.md#api-keys). */
const API_KEY_PREFIX = 'plk_';
/** `plk_<16 hex: the id>_<43 base64url: 256 random bits>`. */
const KEY_PATTERN = /^plk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
/** The role verification drops to (migration 0003): reads keys by id across tenants, writes last use only. */
const KEY_LOOKUP_ROLE = 'credential_key_lookup';

/** A key without its secret. */
export interface ApiKeyInfo {
  keyId: string;
  prefix: string;
  name: string;
  role: TenantRole;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date | undefined;
  revokedAt: Date | undefined;
  lastUsedAt: Date | undefined;
}

interface KeyRow {
  key_id: string;
  name: string;
  role: TenantRole;
  created_by: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const INFO_COLUMNS = 'key_id, name, role, created_by, created_at, expires_at, revoked_at, last_used_at';

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    keyId: row.key_id,
    prefix: `${API_KEY_PREFIX}${row.key_id}`,
    name: row.name,
    role: row.role,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at ?? undefined,
    revokedAt: row.revoked_at ?? undefined,
    lastUsedAt: row.last_used_at ?? undefined,
  };
}

const hashOf = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

const unauthenticated = (code: string, message: string) => new PlatformError('unauthenticated', code, message);

/** Whose a verified key is. */
interface VerifiedKey {
  keyId: string;
  tenantId: string;
  role: TenantRole;
  expiresAt: Date | undefined;
}

/**
 * A tenant's API keys in Postgres: created, listed and revoked as the tenant (RLS), verified by id
 * across tenants as the lookup role, which sees the hash but never a name and writes nothing but
 * the last use. Only the key's SHA-256 is stored.
 */
export class ApiKeyStore {
  constructor(private readonly db: CredentialDatabase) {}

  /** A new key; refused when the tenant's live keys (not revoked, not expired) reach `quota`. */
  async create(
    tenantId: string,
    spec: { name: string; role: TenantRole; expiresAt: Date | undefined; createdBy: string },
    quota: { maxKeys: number; tier: string },
  ): Promise<{ info: ApiKeyInfo; secret: string }> {
    const keyId = randomBytes(8).toString('hex');
    const secret = `${API_KEY_PREFIX}${keyId}_${randomBytes(32).toString('base64url')}`;
    const info = await this.db.asTenant(tenantId, async (client) => {
      await client.query({
        name: 'api-key-quota-lock',
        text: "SELECT pg_advisory_xact_lock(hashtext('api-key-quota'), hashtext($1))",
        values: [tenantId],
      });
      const { rows: counted } = await client.query<{ live: string }>({
        name: 'api-key-count',
        text: `SELECT count(*) AS live FROM api_keys
                WHERE tenant_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
        values: [tenantId],
      });
      if (Number(counted[0]!.live) >= quota.maxKeys)
        throw quotaExceeded({
          quota: QUOTA_NAMES.apiKeys,
          limit: quota.maxKeys,
          tier: quota.tier,
          message: `this tenant holds ${quota.maxKeys} live API keys, the most its tier allows; revoke one first`,
        });
      const { rows } = await client.query<KeyRow>({
        name: 'api-key-insert',
        text: `INSERT INTO api_keys (key_id, tenant_id, name, role, key_hash, created_by, expires_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${INFO_COLUMNS}`,
        values: [keyId, tenantId, spec.name, spec.role, hashOf(secret), spec.createdBy, spec.expiresAt ?? null],
      });
      return toInfo(rows[0]!);
    });
    return { info, secret };
  }

  async list(tenantId: string): Promise<ApiKeyInfo[]> {
    return this.db.asTenant(tenantId, async (client) => {
      const { rows } = await client.query<KeyRow>({
        name: 'api-key-list',
        text: `SELECT ${INFO_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at DESC, key_id`,
        values: [tenantId],
      });
      return rows.map(toInfo);
    });
  }

  /** Revokes for good; another tenant's key is not found, like a missing one. */
  async revoke(tenantId: string, keyId: string): Promise<ApiKeyInfo> {
    const info = await this.db.asTenant(tenantId, async (client) => {
      const { rows } = await client.query<KeyRow>({
        name: 'api-key-revoke',
        text: `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
                WHERE tenant_id = $1 AND key_id = $2 RETURNING ${INFO_COLUMNS}`,
        values: [tenantId, keyId],
      });
      return rows[0] ? toInfo(rows[0]) : undefined;
    });
    if (!info) throw errors.notFound(ErrorCodes.API_KEY_NOT_FOUND, `no API key '${keyId}'`);
    return info;
  }

  /** Whose the presented key is; a malformed, unknown, revoked or expired key is UNAUTHENTICATED. */
  async verify(key: string): Promise<VerifiedKey> {
    const match = KEY_PATTERN.exec(key);
    if (!match) throw unauthenticated(ErrorCodes.INVALID_API_KEY, 'the API key is not well formed');
    const keyId = match[1]!;
    const row = await this.asLookup(async (client) => {
      const { rows } = await client.query<{
        tenant_id: string;
        role: TenantRole;
        key_hash: Buffer;
        expires_at: Date | null;
        revoked_at: Date | null;
      }>({
        name: 'api-key-lookup',
        text: 'SELECT tenant_id, role, key_hash, expires_at, revoked_at FROM api_keys WHERE key_id = $1',
        values: [keyId],
      });
      return rows[0];
    });
    // An unknown id and a wrong secret read the same: the answer says nothing about which keys exist.
    if (!row || !timingSafeEqual(row.key_hash, hashOf(key)))
      throw unauthenticated(ErrorCodes.INVALID_API_KEY, 'the API key is not valid');
    if (row.revoked_at) throw unauthenticated(ErrorCodes.API_KEY_REVOKED, 'the API key has been revoked');
    if (row.expires_at && row.expires_at.getTime() <= Date.now())
      throw unauthenticated(ErrorCodes.API_KEY_EXPIRED, 'the API key has expired');
    return { keyId, tenantId: row.tenant_id, role: row.role, expiresAt: row.expires_at ?? undefined };
  }

  /** Records last uses (a batch from the api); a later use never moves back. */
  async recordUse(uses: ReadonlyArray<{ keyId: string; usedAt: Date }>): Promise<void> {
    if (uses.length === 0) return;
    await this.asLookup((client) =>
      client.query({
        name: 'api-key-touch',
        text: `UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, u.used_at)
                 FROM unnest($1::text[], $2::timestamptz[]) AS u(key_id, used_at) WHERE k.key_id = u.key_id`,
        values: [uses.map((u) => u.keyId), uses.map((u) => u.usedAt)],
      }),
    );
  }

  private asLookup<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.db.asRole(KEY_LOOKUP_ROLE, fn);
  }
}
