import type pg from 'pg';
import { collectionPrefixSql } from '../knowledge/collections.js';
import { orQuery } from '../knowledge/turn-store.js';

/** A search's hit: the item's key and time (a fact's valid_from, an episode's last_seen_at: a repeated turn episode is as recent as its last repetition), for recency. */
export interface RankedHit {
  key: string;
  at: Date;
}

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
  /** Facts one query term may bring. */
  perTermCandidates: number;
  trigramWords: number;
  trigramTerms: number;
  trigramThreshold: number;
}

/** Too common to tell facts apart: comparing them by trigram only costs time. */
const STOP_WORDS = new Set(
  'about above after again also and any are because been before being below between both but can did does doing down during each few for from further had has have having her here hers him his how into its just more most not now off once only other our ours out over own same she should some such than that the their them then there these they this those through too under until very was were what when where which while who whom why will with would you your yours remember tell know'.split(
    ' ',
  ),
);

/** The query's longest distinct words, stop words left out: the ones worth a fuzzy match. */
function trigramWords(query: string, max: number): string[] {
  const words = new Set((query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP_WORDS.has(w)));
  return [...words].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, max);
}

/** True when every lexeme of `wordSql` (english configuration) is in `lexemesSql`; a word with none (a stop word, which fetches nothing) counts as common. */
const isCommonSql = (wordSql: string, lexemesSql: string): string =>
  `tsvector_to_array(to_tsvector('english', ${wordSql})) <@ ${lexemesSql}`;

/** True when `wordSql` has lexemes (english configuration) and all are in `lexemesSql`. */
const hasOnlyCommonLexemesSql = (wordSql: string, lexemesSql: string): string =>
  `(SELECT l <> '{}' AND l <@ ${lexemesSql} FROM (SELECT tsvector_to_array(to_tsvector('english', ${wordSql})) AS l) AS x)`;

/**
 * Full-text ranking: item keys and times, best first. Each query term brings at most `perTermCandidates`
 * facts (and episodes) from the tenant's own GIN entries, and only that bounded set is ranked, by
 * `ts_rank` against the whole query. Common terms (see `CommonLexemes`) bring no
 * candidates while the query has another term, but still rank them: "where does Alice live"
 * finds Alice's facts and ranks "Alice lives in Berlin" first, without reading the 10,000 facts
 * that say "lives in". A query of common terms only is served by them, as before.
 */
export async function fulltextRanking(
  db: Pick<pg.Pool, 'query'>,
  q: KeywordQuery,
  common: readonly string[],
  settings: KeywordSearchSettings,
): Promise<RankedHit[]> {
  const tsquery = orQuery(q.query);
  if (!tsquery) return [];
  const prefix = collectionPrefixSql('$2');
  const { rows } = await db.query<RankedHit>(
    {
      name: 'recall-fulltext',
      text: `WITH terms AS (SELECT t, ${isCommonSql('t', '$8::text[]')} AS is_common FROM unnest($6::text[]) AS t),
       generators AS (SELECT t FROM terms WHERE NOT is_common OR NOT EXISTS (SELECT 1 FROM terms WHERE NOT is_common))
     SELECT key, at FROM (
       SELECT 'f:' || c.fact_id AS key, ts_rank(c.search_vector, to_tsquery('english', $3)) AS rank, c.valid_from AS at
       FROM (SELECT DISTINCT ON (f.fact_id) f.fact_id, f.search_vector, f.valid_from FROM generators AS g,
               LATERAL (SELECT fact_id, search_vector, valid_from FROM facts
                        WHERE tenant_id = $1 AND valid_to IS NULL AND ${prefix} AND search_vector @@ plainto_tsquery('english', g.t) LIMIT $7) AS f) AS c
       UNION ALL
       SELECT 'e:' || c.episode_id, ts_rank(c.search_vector, to_tsquery('english', $3)), c.last_seen_at
       FROM (SELECT DISTINCT ON (e.episode_id) e.episode_id, e.search_vector, e.last_seen_at FROM generators AS g,
               LATERAL (SELECT episode_id, search_vector, last_seen_at FROM episodes
                        WHERE $5 AND tenant_id = $1 AND ${prefix} AND search_vector @@ plainto_tsquery('english', g.t) LIMIT $7) AS e) AS c) AS hits
     ORDER BY rank DESC, at DESC, key LIMIT $4`,
    },
    [
      q.tenantId,
      q.collectionPrefix,
      tsquery,
      settings.candidates,
      q.includeEpisodes,
      tsquery.split(' | '),
      settings.perTermCandidates,
      common,
    ],
  );
  return rows;
}

/**
 * Trigram ranking (names, typos): item keys and times, best first. Each query word is compared with the
 * tenant's vocabulary (recall_terms: its distinct words, a few thousand rows, trigram-indexed), not
 * with every text. Its closest words, best first, fetch their facts through the full-text index
 * until the word has `candidates` of them; those are scored by word similarity against their whole
 * text, as a full scan would score them. The closest words come from a sorted subquery, so the
 * nested loop reads them in that order and stops at `candidates` facts: a query word that matches a
 * word of the vocabulary exactly is usually served by that word alone. Each text's similarity is
 * computed once: `sim >= threshold` is what `<%` tests. A query word that is itself common (see
 * `CommonLexemes`) fetches nothing but adds 1 to each fetched item whose text has it (a full-text
 * match, cheaper than a similarity), as full text ranks by it; a near word whose lexeme is common
 * fetches nothing either.
 */
export async function trigramRanking(
  db: Pick<pg.Pool, 'query'>,
  q: KeywordQuery,
  common: readonly string[],
  settings: KeywordSearchSettings,
): Promise<RankedHit[]> {
  const words = trigramWords(q.query, settings.trigramWords);
  if (words.length === 0) return [];
  const prefix = collectionPrefixSql('$2');
  // One kind of item (facts or episodes): the similarity each fetching word found, summed per item,
  // plus 1 for each common word the item's text contains (a full-text match, as full text ranks by it).
  const ranked = (kind: string, id: string, at: string, text: string, candidates: string) => `
       SELECT '${kind}:' || r.id AS key, r.sim + (SELECT count(*) FROM words AS cw WHERE cw.is_common AND r.vector @@ plainto_tsquery('english', cw.w)) AS sim, r.at
       FROM (SELECT DISTINCT ON (s.id) s.id, sum(s.sim) OVER (PARTITION BY s.id) AS sim, max(s.at) OVER (PARTITION BY s.id) AS at, s.vector FROM (
               SELECT DISTINCT q.w, c.id, c.at, c.sim, c.vector FROM words AS q,
                 LATERAL (SELECT f.${id} AS id, f.${at} AS at, f.search_vector AS vector, word_similarity(q.w, f.${text}) AS sim
                          FROM (SELECT term, sim FROM near WHERE near.w = q.w ORDER BY sim DESC, term) AS n,
                            LATERAL (${candidates} AND search_vector @@ plainto_tsquery('english', n.term) LIMIT $4) AS f
                          ORDER BY n.sim DESC, n.term LIMIT $4) AS c
               WHERE NOT q.is_common AND c.sim >= $7::float8) AS s) AS r`;
  const { rows } = await db.query<RankedHit>(
    {
      name: 'recall-trigram',
      text: `WITH words AS (SELECT w, ${hasOnlyCommonLexemesSql('w', '$8::text[]')} AS is_common FROM unnest($3::text[]) AS w),
       near AS (
         SELECT q.w, t.term, t.sim FROM words AS q,
           LATERAL (SELECT term, word_similarity(q.w, term) AS sim FROM recall_terms
                    WHERE tenant_id = $1 AND q.w <% term ORDER BY sim DESC, term LIMIT $6) AS t
         WHERE NOT q.is_common AND NOT ${isCommonSql('t.term', '$8::text[]')})
     SELECT key, at FROM (
       ${ranked('f', 'fact_id', 'valid_from', 'search_text', `SELECT fact_id, valid_from, search_text, search_vector FROM facts WHERE tenant_id = $1 AND valid_to IS NULL AND ${prefix}`)}
       UNION ALL
       ${ranked('e', 'episode_id', 'last_seen_at', 'summary', `SELECT episode_id, last_seen_at, summary, search_vector FROM episodes WHERE $5 AND tenant_id = $1 AND ${prefix}`)}) AS hits
     ORDER BY sim DESC, at DESC, key LIMIT $4`,
    },
    [
      q.tenantId,
      q.collectionPrefix,
      words,
      settings.candidates,
      q.includeEpisodes,
      settings.trigramTerms,
      settings.trigramThreshold,
      common,
    ],
  );
  return rows;
}
