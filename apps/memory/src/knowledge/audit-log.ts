import type pg from 'pg';

/** One row of memory's deletion audit (migrations/0002 `audit_log`): who, what, when and counts; never content. */
export async function writeAudit(
  client: pg.PoolClient,
  entry: { tenantId: string; action: string; target: string; actor: string; reason: string },
  counts: Record<string, number>,
): Promise<string> {
  const { rows } = await client.query<{ audit_id: string }>(
    'INSERT INTO audit_log (tenant_id, action, target, actor, reason, counts) VALUES ($1, $2, $3, $4, $5, $6) RETURNING audit_id',
    [entry.tenantId, entry.action, entry.target, entry.actor, entry.reason, JSON.stringify(counts)],
  );
  return rows[0]!.audit_id;
}
