import type pg from 'pg';

export interface WorkingMemoryEntryRow {
  key: string;
  valueJson: string;
  updatedAt: Date;
}

/** A run's scratchpad: keys with JSON values, scoped by (tenant, run). */
export class WorkingMemoryStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: { maxKeys: number },
  ) {}

  /** Writes (or, with an empty value, deletes) keys; returns the run's key count after the write. Refuses to grow past maxKeys. */
  async set(
    tenantId: string,
    runId: string,
    conversationId: string | null,
    entries: readonly { key: string; valueJson: string }[],
  ): Promise<number | 'too_many_keys'> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`wm:${tenantId}\u001f${runId}`]);
      for (const { key, valueJson } of entries) {
        if (valueJson === '')
          await client.query('DELETE FROM working_memory WHERE tenant_id = $1 AND run_id = $2 AND key = $3', [
            tenantId,
            runId,
            key,
          ]);
        else
          await client.query(
            `INSERT INTO working_memory (tenant_id, run_id, key, value_json, conversation_id) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (tenant_id, run_id, key) DO UPDATE SET value_json = EXCLUDED.value_json, updated_at = now()`,
            [tenantId, runId, key, valueJson, conversationId],
          );
      }
      const { rows } = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM working_memory WHERE tenant_id = $1 AND run_id = $2',
        [tenantId, runId],
      );
      const size = Number(rows[0]!.n);
      if (size > this.limits.maxKeys) {
        await client.query('ROLLBACK');
        return 'too_many_keys';
      }
      await client.query('COMMIT');
      return size;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async get(tenantId: string, runId: string, keys: readonly string[]): Promise<WorkingMemoryEntryRow[]> {
    const { rows } = await this.pool.query<{ key: string; value_json: string; updated_at: Date }>(
      `SELECT key, value_json, updated_at FROM working_memory
       WHERE tenant_id = $1 AND run_id = $2 AND (cardinality($3::text[]) = 0 OR key = ANY($3::text[])) ORDER BY key`,
      [tenantId, runId, keys],
    );
    return rows.map((r) => ({ key: r.key, valueJson: r.value_json, updatedAt: r.updated_at }));
  }

  async clearRun(tenantId: string, runId: string): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM working_memory WHERE tenant_id = $1 AND run_id = $2', [
      tenantId,
      runId,
    ]);
    return rowCount ?? 0;
  }

  /** Drops the working memory of several finished runs (each key scoped by its tenant) with one statement. */
  async clearRuns(keys: readonly { tenantId: string; runId: string }[]): Promise<number> {
    if (keys.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      'DELETE FROM working_memory w USING unnest($1::text[], $2::text[]) AS k(tenant_id, run_id) WHERE w.tenant_id = k.tenant_id AND w.run_id = k.run_id',
      [keys.map((k) => k.tenantId), keys.map((k) => k.runId)],
    );
    return rowCount ?? 0;
  }

  /** Drops the working memory of runs untouched for `ttlMs` (runs that never reported their end). */
  async expire(ttlMs: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM working_memory WHERE updated_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [ttlMs],
    );
    return rowCount ?? 0;
  }
}
