import type pg from 'pg';
import type { FactQuota } from './fact-saver.js';

/** How many more current facts one tenant may hold within this transaction. */
export interface FactRoom {
  tenantId: string;
  quota: FactQuota;
  /** Current facts, kept up to date as the transaction writes. */
  current: number;
  /** New facts this transaction has still to write for the tenant (before any is written). */
  pending: number;
}

/**
 * Takes the fact-quota locks of `tenants` (the same per-tenant transaction lock a save takes, so
 * a save and a learned fact at the limit cannot both pass), in sorted order so two writers of
 * several tenants never wait on each other in opposite orders, and counts each tenant's current
 * facts. Call it before taking any fact slot lock: every writer takes quota locks first.
 */
export async function holdFactRooms(
  client: pg.PoolClient,
  tenants: ReadonlyMap<string, { tier: string; pending: number }>,
  quotaOf: (tier: string) => FactQuota,
): Promise<Map<string, FactRoom>> {
  const sorted = [...tenants.keys()].sort();
  const rooms = new Map<string, FactRoom>();
  if (sorted.length === 0) return rooms;
  // Two keys, so no tenant id can meet another's lock through a separator (as fact-saver.ts).
  await client.query(
    `SELECT pg_advisory_xact_lock(hashtext('memory-fact-quota'), hashtext(t))
     FROM unnest($1::text[]) WITH ORDINALITY AS x(t, n) ORDER BY n`,
    [sorted],
  );
  const { rows } = await client.query<{ tenant_id: string; n: number }>(
    `SELECT tenant_id, count(*)::int AS n FROM facts WHERE tenant_id = ANY($1::text[]) AND valid_to IS NULL GROUP BY tenant_id`,
    [sorted],
  );
  const counts = new Map(rows.map((r) => [r.tenant_id, r.n]));
  for (const tenantId of sorted) {
    const { tier, pending } = tenants.get(tenantId)!;
    rooms.set(tenantId, { tenantId, quota: quotaOf(tier), current: counts.get(tenantId) ?? 0, pending });
  }
  return rooms;
}

/** Whether writing the tenant's remaining facts could pass its quota (each must then be checked as written). */
export function mayOverflow(room: FactRoom): boolean {
  return room.current + room.pending > room.quota.maxFacts;
}
