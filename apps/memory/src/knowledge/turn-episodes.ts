import type pg from 'pg';

/** One turn's episode to store: its batch position, provenance and summary. */
export interface TurnEpisode {
  /** The turn's position in its batch (echoed back). */
  i: number;
  tenantId: string;
  collection: string;
  conversationId: string;
  runId: string;
  firstSeq: number;
  lastSeq: number;
  summary: string;
  topics: readonly string[];
}

/** Where a turn's episode went. */
export interface StoredEpisode {
  i: number;
  episodeId: string;
  /** The row was inserted by this statement (embed it); false: the turn repeated a stored episode. */
  inserted: boolean;
  /** The stored row's summary (the first wording of a repeated one). */
  summary: string;
}

/**
 * Stores the turns' episodes in ONE statement, a repeated summary once. Summaries are compared
 * by `episode_summary_key` (migration 0005: white space collapsed and trimmed, lower case,
 * sha256) within a tenant and collection. Turns of the batch that share a key are merged before
 * the insert (ON CONFLICT cannot touch a row twice): the first of them gives the row its wording
 * and provenance, all of them count. A key already stored adds its count to the row's
 * `occurrences` and moves `last_seen_at`, and inserts nothing (so no vocabulary words, no
 * embedding, no HNSW insert). Rows go in key order, so two writers meeting on several keys wait
 * for each other in one order (the second waits for the first's commit, then counts). Every turn's
 * `ingested_runs` row is pointed at its episode in the same statement. A row was inserted here
 * when it names the turn's own run (xmax cannot be read through a partitioned table): an existing
 * row names an earlier run, and this transaction has just claimed its runs as new, so only the
 * first turn of a merged group can match.
 */
export async function storeTurnEpisodes(
  client: pg.PoolClient,
  episodes: readonly TurnEpisode[],
): Promise<StoredEpisode[]> {
  if (episodes.length === 0) return [];
  const col = <T>(f: (e: TurnEpisode) => T): T[] => episodes.map(f);
  const { rows } = await client.query<{ i: number; episode_id: string; inserted: boolean; summary: string }>(
    `WITH input AS (
       SELECT x.*, episode_summary_key(x.s) AS k
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[]) AS x(i, t, c, conv, s, tp, f, l, r)),
     merged AS (
       SELECT DISTINCT ON (t, c, k) t, c, k, conv, s, tp, f, l, r, count(*) OVER (PARTITION BY t, c, k) AS n
       FROM input ORDER BY t, c, k, i),
     stored AS (
       INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, topics, first_seq, last_seq, run_id, occurrences)
       SELECT t, c, conv, 'turn', s, ARRAY(SELECT jsonb_array_elements_text(tp::jsonb)), f, l, r, n FROM merged ORDER BY t, c, k
       ON CONFLICT (tenant_id, collection, episode_summary_key(summary)) WHERE kind = 'turn'
       DO UPDATE SET occurrences = episodes.occurrences + EXCLUDED.occurrences, last_seen_at = now()
       RETURNING tenant_id, collection, episode_summary_key(summary) AS k, episode_id, run_id, summary),
     linked AS (
       UPDATE ingested_runs r SET episode_id = s.episode_id
       FROM input i JOIN stored s ON s.tenant_id = i.t AND s.collection = i.c AND s.k = i.k
       WHERE r.tenant_id = i.t AND r.run_id = i.r)
     SELECT i.i, s.episode_id, s.run_id = i.r AS inserted, s.summary
     FROM input i JOIN stored s ON s.tenant_id = i.t AND s.collection = i.c AND s.k = i.k
     ORDER BY i.i`,
    [
      col((e) => e.i),
      col((e) => e.tenantId),
      col((e) => e.collection),
      col((e) => e.conversationId),
      col((e) => e.summary),
      col((e) => JSON.stringify(e.topics)),
      col((e) => e.firstSeq),
      col((e) => e.lastSeq),
      col((e) => e.runId),
    ],
  );
  return rows.map((r) => ({ i: r.i, episodeId: r.episode_id, inserted: r.inserted, summary: r.summary }));
}
