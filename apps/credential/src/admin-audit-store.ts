import type { CredentialDatabase } from './credential-database.js';

/** One successful administrative write, as the api reports it (docs/access.md#audit). Never a secret. */
interface AdminActionEntry {
  operation: string;
  method: string;
  resource: string;
  status: number;
  role: string;
  subject: string;
  keyId: string;
  actingUser: string;
  requestId: string;
}

interface AdminAction extends AdminActionEntry {
  id: number;
  at: Date;
}

interface ActionRow {
  id: string;
  operation: string;
  method: string;
  resource: string;
  status: number;
  role: string;
  subject: string;
  key_id: string;
  acting_user: string;
  request_id: string;
  at: Date;
}

/** The audit of administrative actions (migration 0004): appended and read as the tenant (RLS). */
export class AdminAuditStore {
  constructor(private readonly db: CredentialDatabase) {}

  async record(tenantId: string, entry: AdminActionEntry): Promise<number> {
    return this.db.asTenant(tenantId, async (client) => {
      const { rows } = await client.query<{ id: string }>({
        name: 'admin-audit-append',
        text: `INSERT INTO admin_audit (tenant_id, operation, method, resource, status, role, subject, key_id, acting_user, request_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
        values: [
          tenantId,
          entry.operation,
          entry.method,
          entry.resource,
          entry.status,
          entry.role,
          entry.subject,
          entry.keyId,
          entry.actingUser,
          entry.requestId,
        ],
      });
      return Number(rows[0]!.id);
    });
  }

  /** A page of the tenant's actions, newest first. */
  async list(tenantId: string, beforeId: number, limit: number): Promise<AdminAction[]> {
    return this.db.asTenant(tenantId, async (client) => {
      const { rows } = await client.query<ActionRow>({
        name: 'admin-audit-list',
        text: `SELECT id, operation, method, resource, status, role, subject, key_id, acting_user, request_id, at FROM admin_audit
                WHERE tenant_id = $1 AND ($2::bigint = 0 OR id < $2) ORDER BY id DESC LIMIT $3`,
        values: [tenantId, beforeId, limit],
      });
      return rows.map((r) => ({
        id: Number(r.id),
        operation: r.operation,
        method: r.method,
        resource: r.resource,
        status: r.status,
        role: r.role,
        subject: r.subject,
        keyId: r.key_id,
        actingUser: r.acting_user,
        requestId: r.request_id,
        at: r.at,
      }));
    });
  }
}
