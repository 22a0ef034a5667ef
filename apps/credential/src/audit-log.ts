import type pg from 'pg';

/** One audit row: who did what to which credential, and how it ended. Never secret material. */
export interface AuditEntry {
  service: string;
  account: string;
  action: 'save' | 'get' | 'list' | 'delete';
  /** ok, not_found, version_conflict, denied, decrypt_failed, key_unavailable. */
  outcome: string;
  actorKind: 'platform' | 'grant';
  subject: string;
  tool: string;
  runId: string;
  callId: string;
}

export interface AuditEvent extends AuditEntry {
  id: number;
  at: Date;
}

/** Appends an audit row inside the caller's tenant transaction. */
export async function appendAudit(client: pg.PoolClient, tenantId: string, entry: AuditEntry): Promise<void> {
  await client.query({
    name: 'credential-audit-append',
    text: `INSERT INTO audit_events (tenant_id, service, account, action, outcome, actor_kind, subject, tool, run_id, call_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    values: [
      tenantId,
      entry.service,
      entry.account,
      entry.action,
      entry.outcome,
      entry.actorKind,
      entry.subject,
      entry.tool,
      entry.runId,
      entry.callId,
    ],
  });
}

/** A page of the tenant's audit trail, newest first. */
export async function listAudit(
  client: pg.PoolClient,
  tenantId: string,
  beforeId: number,
  limit: number,
): Promise<AuditEvent[]> {
  const { rows } = await client.query<{
    id: string;
    service: string;
    account: string;
    action: AuditEntry['action'];
    outcome: string;
    actor_kind: AuditEntry['actorKind'];
    subject: string;
    tool: string;
    run_id: string;
    call_id: string;
    at: Date;
  }>({
    name: 'credential-audit-list',
    text: `SELECT id, service, account, action, outcome, actor_kind, subject, tool, run_id, call_id, at FROM audit_events
           WHERE tenant_id = $1 AND ($2::bigint = 0 OR id < $2) ORDER BY id DESC LIMIT $3`,
    values: [tenantId, beforeId, limit],
  });
  return rows.map((r) => ({
    id: Number(r.id),
    service: r.service,
    account: r.account,
    action: r.action,
    outcome: r.outcome,
    actorKind: r.actor_kind,
    subject: r.subject,
    tool: r.tool,
    runId: r.run_id,
    callId: r.call_id,
    at: r.at,
  }));
}
