import type pg from 'pg';

export interface CommonLexemesSettings {
  /** A lexeme estimated in more of the partition's facts than this is common (the per-term cap). */
  perTermCandidates: number;
  /** How long one tenant's list is used before it is read again (0 = every recall). */
  refreshMs: number;
  /** Tenants whose lists are kept at most (the oldest is dropped first). */
  maxTenants: number;
}

/**
 * The full-text lexemes too common in a tenant's facts to pick recall candidates by: those
 * PostgreSQL's statistics of the tenant's `facts` partition (ANALYZE's most common elements of
 * `search_vector`, kept fresh by autovacuum) estimate in more facts than the per-term cap. Such a
 * lexeme's GIN posting list is long (a predicate like "lives_in" is in 10% of facts), reading it is
 * most of a search's cost, and the cap keeps an arbitrary few of its facts anyway. Without
 * statistics (a new or small partition) no lexeme is common. Tenants that share a partition share
 * its figures. Reading `pg_stats` costs a few milliseconds, so each tenant's list is kept for
 * `refreshMs` in this process.
 */
export class CommonLexemes {
  private readonly lists = new Map<
    string,
    { lexemes: readonly string[]; readAt: number; reading?: Promise<readonly string[]> }
  >();

  constructor(
    private readonly db: Pick<pg.Pool, 'query'>,
    private readonly settings: CommonLexemesSettings,
  ) {}

  async of(tenantId: string): Promise<readonly string[]> {
    const known = this.lists.get(tenantId);
    if (known && (known.reading || Date.now() - known.readAt < this.settings.refreshMs))
      return known.reading ?? known.lexemes;
    const reading = this.read(tenantId);
    this.lists.set(tenantId, { lexemes: known?.lexemes ?? [], readAt: known?.readAt ?? 0, reading });
    try {
      const lexemes = await reading;
      this.lists.delete(tenantId);
      this.lists.set(tenantId, { lexemes, readAt: Date.now() });
      if (this.lists.size > this.settings.maxTenants) this.lists.delete(this.lists.keys().next().value!);
      return lexemes;
    } catch (err) {
      this.lists.delete(tenantId);
      throw err;
    }
  }

  private async read(tenantId: string): Promise<readonly string[]> {
    const { rows } = await this.db.query<{ lexemes: string[] }>(
      `WITH part AS (SELECT c.relname, c.reltuples FROM pg_class c
                     WHERE c.oid = (SELECT tableoid FROM facts WHERE tenant_id = $1 AND valid_to IS NULL LIMIT 1))
       SELECT coalesce(array_agg(e.lexeme ORDER BY e.lexeme), '{}'::text[]) AS lexemes
       FROM part JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = part.relname AND s.attname = 'search_vector'
       CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, freq)
       WHERE e.lexeme IS NOT NULL AND e.freq * part.reltuples > $2`,
      [tenantId, this.settings.perTermCandidates],
    );
    return rows[0]?.lexemes ?? [];
  }
}
