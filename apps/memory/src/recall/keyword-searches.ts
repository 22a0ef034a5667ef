import type pg from 'pg';
import { collectionPrefixSql } from '../knowledge/collections.js';
import { orQuery } from '../knowledge/turn-store.js';

/** What the keyword searches need of a recall. */
export interface KeywordQuery {
  tenantId: string;
  query: string;
  collectionPrefix: string;
  includeEpisodes: boolean;
}

export interface KeywordSearchSettings {
  /** Items each search returns (best first). */
  candidates: number;
  /** Facts one query term may bring; a lexeme estimated to match more of the tenant's facts than this is "common". */
  perTermCandidates: number;
  trigramWords: number;
  trigramTerms: number;
  trigramThreshold: number;
}

/** Too common to tell facts apart: comparing them by trigram only costs time. */
const STOP_WORDS = new Set(
  'about above after again also and any are because been before being below between both but can did does doing down during each few for from further had has have having her here hers him his how into its just more most not now off once only other our ours out over own same she should some such than that the their them then there these they this those through too under until very was were what when where which while who whom why will with would you your yours remember tell know'.split(' '),
);

/** The query's longest distinct words, stop words left out: the ones worth a fuzzy match. */
export function trigramWords(query: string, max: number): string[] {
  const words = new Set((query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP_WORDS.has(w)));
  return [...words].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, max);
}

/**
 * The lexemes too common in the tenant's facts to pick candidates by (`text[]`, one row): those
 * PostgreSQL's statistics of the tenant's `facts` partition (ANALYZE's most common elements of
 * `search_vector`) estimate in more facts than `capParam` (the per-term cap). Such a lexeme's GIN
 * posting list is long (a predicate like "lives_in" is in 10% of facts), reading it is most of a
 * search's cost, and the cap would keep an arbitrary few of its facts anyway. Without statistics
 * (a new or small partition) no lexeme is common. Tenants that share a partition share its figures.
 */
function commonLexemesSql(tenantParam: string, capParam: string): string {
  return `SELECT coalesce(array_agg(e.lexeme), '{}'::text[]) AS lexemes
          FROM pg_class c
          JOIN pg_stats s ON s.schemaname = c.relnamespace::regnamespace::text AND s.tablename = c.relname AND s.attname = 'search_vector'
          CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, freq)
          WHERE c.oid = (SELECT tableoid FROM facts WHERE tenant_id = ${tenantParam} AND valid_to IS NULL LIMIT 1)
            AND e.lexeme IS NOT NULL AND e.freq * c.reltuples > ${capParam}`;
}

/** True when every lexeme of `wordSql` (english configuration) is in `lexemesSql` (a word with none, a stop word, counts as common). */
const isCommonSql = (wordSql: string, lexemesSql: string): string => `tsvector_to_array(to_tsvector('english', ${wordSql})) <@ ${lexemesSql}`;

/**
 * Full-text ranking: item keys, best first. Each query term brings at most `perTermCandidates`
 * facts (and episodes) from the tenant's own GIN entries, and only that bounded set is ranked, by
 * `ts_rank` against the whole query. Common terms (see {@link commonLexemesSql}) bring no
 * candidates while the query has another term, but still rank them: "where does Alice live"
 * finds Alice's facts and ranks "Alice lives in Berlin" first, without reading the 10,000 facts
 * that say "lives in". A query of common terms only is served by them, as before.
 */
export async function fulltextRanking(db: Pick<pg.Pool, 'query'>, q: KeywordQuery, settings: KeywordSearchSettings): Promise<string[]> {
  const tsquery = orQuery(q.query);
  if (!tsquery) return [];
  const prefix = collectionPrefixSql('$2');
  const { rows } = await db.query<{ key: string }>(
    `WITH common AS (${commonLexemesSql('$1', '$7')}),
       terms AS (SELECT t, ${isCommonSql('t', '(SELECT lexemes FROM common)')} AS is_common FROM unnest($6::text[]) AS t),
       generators AS (SELECT t FROM terms WHERE NOT is_common OR NOT EXISTS (SELECT 1 FROM terms WHERE NOT is_common))
     SELECT key FROM (
       SELECT 'f:' || c.fact_id AS key, ts_rank(c.search_vector, to_tsquery('english', $3)) AS rank, c.valid_from AS at
       FROM (SELECT DISTINCT ON (f.fact_id) f.fact_id, f.search_vector, f.valid_from FROM generators AS g,
               LATERAL (SELECT fact_id, search_vector, valid_from FROM facts
                        WHERE tenant_id = $1 AND valid_to IS NULL AND ${prefix} AND search_vector @@ plainto_tsquery('english', g.t) LIMIT $7) AS f) AS c
       UNION ALL
       SELECT 'e:' || c.episode_id, ts_rank(c.search_vector, to_tsquery('english', $3)), c.created_at
       FROM (SELECT DISTINCT ON (e.episode_id) e.episode_id, e.search_vector, e.created_at FROM generators AS g,
               LATERAL (SELECT episode_id, search_vector, created_at FROM episodes
                        WHERE $5 AND tenant_id = $1 AND ${prefix} AND search_vector @@ plainto_tsquery('english', g.t) LIMIT $7) AS e) AS c) AS hits
     ORDER BY rank DESC, at DESC, key LIMIT $4`,
    [q.tenantId, q.collectionPrefix, tsquery, settings.candidates, q.includeEpisodes, tsquery.split(' | '), settings.perTermCandidates],
  );
  return rows.map((r) => r.key);
}

/**
 * Trigram ranking (names, typos): item keys, best first. Each query word is compared with the
 * tenant's vocabulary (recall_terms: its distinct words, a few thousand rows, trigram-indexed), not
 * with every text. Its closest words, best first, fetch their facts through the full-text index
 * until the word has `candidates` of them; those are scored by word similarity against their whole
 * text, as a full scan would score them. The closest words come from a sorted subquery, so the
 * nested loop reads them in that order and stops at `candidates` facts: a query word that matches a
 * word of the vocabulary exactly is usually served by that word alone. Each text's similarity is
 * computed once: `sim >= threshold` is what `<%` tests. A near word whose lexeme is common (see
 * {@link commonLexemesSql}) fetches nothing: full text already ranks its facts by it.
 */
export async function trigramRanking(db: Pick<pg.Pool, 'query'>, q: KeywordQuery, settings: KeywordSearchSettings): Promise<string[]> {
  const words = trigramWords(q.query, settings.trigramWords);
  if (words.length === 0) return [];
  const prefix = collectionPrefixSql('$2');
  const { rows } = await db.query<{ key: string }>(
    `WITH common AS (${commonLexemesSql('$1', '$8')}),
       near AS (
         SELECT q.w, t.term, t.sim FROM unnest($3::text[]) AS q(w),
           LATERAL (SELECT term, word_similarity(q.w, term) AS sim FROM recall_terms
                    WHERE tenant_id = $1 AND q.w <% term ORDER BY sim DESC, term LIMIT $6) AS t
         WHERE NOT ${isCommonSql('t.term', '(SELECT lexemes FROM common)')})
     SELECT key FROM (
       SELECT 'f:' || s.fact_id AS key, sum(s.sim) AS sim, max(s.at) AS at FROM (
         SELECT DISTINCT q.w, c.fact_id, c.at, c.sim FROM unnest($3::text[]) AS q(w),
           LATERAL (SELECT f.fact_id, f.valid_from AS at, word_similarity(q.w, f.search_text) AS sim FROM (SELECT term, sim FROM near WHERE near.w = q.w ORDER BY sim DESC, term) AS n,
                      LATERAL (SELECT fact_id, valid_from, search_text FROM facts
                               WHERE tenant_id = $1 AND valid_to IS NULL AND ${prefix} AND search_vector @@ plainto_tsquery('english', n.term) LIMIT $4) AS f
                    ORDER BY n.sim DESC, n.term LIMIT $4) AS c
         WHERE c.sim >= $7::float8) AS s
       GROUP BY s.fact_id
       UNION ALL
       SELECT 'e:' || s.episode_id, sum(s.sim), max(s.at) FROM (
         SELECT DISTINCT q.w, c.episode_id, c.at, c.sim FROM unnest($3::text[]) AS q(w),
           LATERAL (SELECT e.episode_id, e.created_at AS at, word_similarity(q.w, e.summary) AS sim FROM (SELECT term, sim FROM near WHERE near.w = q.w ORDER BY sim DESC, term) AS n,
                      LATERAL (SELECT episode_id, created_at, summary FROM episodes
                               WHERE $5 AND tenant_id = $1 AND ${prefix} AND search_vector @@ plainto_tsquery('english', n.term) LIMIT $4) AS e
                    ORDER BY n.sim DESC, n.term LIMIT $4) AS c
         WHERE c.sim >= $7::float8) AS s
       GROUP BY s.episode_id) AS hits
     ORDER BY sim DESC, at DESC, key LIMIT $4`,
    [q.tenantId, q.collectionPrefix, words, settings.candidates, q.includeEpisodes, settings.trigramTerms, settings.trigramThreshold, settings.perTermCandidates],
  );
  return rows.map((r) => r.key);
}
