import type { memoryV1 } from '@platform/proto';
import type { Logger } from '@platform/service-kit';
import type pg from 'pg';
import { collectionPrefixSql } from '../knowledge/collections.js';
import { FACT_COLUMNS, factText, factToProto, type FactRow } from '../knowledge/fact-rows.js';
import { orQuery } from '../knowledge/turn-store.js';
import { estimateTokens, fuseRankings, whyRecalled, type FusedItem, type FusionSettings, type Ranking } from './rank-fusion.js';
import type { VectorIndex } from './vector-index.js';

export interface RecallSettings extends FusionSettings {
  candidates: number;
  trigramThreshold: number;
  trigramWords: number;
  /** Vocabulary words (closest first) one query word is matched to. */
  trigramTerms: number;
  /** Facts one query term may bring to a search (bounds recall cost on common terms). */
  perTermCandidates: number;
  historyMessages: number;
  embeddingTimeoutMs: number;
  vectorMinSimilarity: number;
}

export interface RecallQuery {
  tenantId: string;
  query: string;
  collectionPrefix: string;
  limit: number;
  tokenBudget: number;
  conversationId: string;
  includeEpisodes: boolean;
}

interface EpisodeRow {
  episode_id: string;
  collection: string;
  conversation_id: string;
  kind: string;
  summary: string;
  topics: string[];
  first_seq: string;
  last_seq: string;
  run_id: string | null;
  created_at: Date;
}

/** Words too common to tell facts apart: comparing them by trigram only costs time. */
const STOP_WORDS = new Set(
  'about above after again also and any are because been before being below between both but can did does doing down during each few for from further had has have having her here hers him his how into its just more most not now off once only other our ours out over own same she should some such than that the their them then there these they this those through too under until very was were what when where which while who whom why will with would you your yours remember tell know'.split(' '),
);

/** The query's longest distinct words, stop words left out: the ones worth a fuzzy match. */
export function trigramWords(query: string, max: number): string[] {
  const words = new Set((query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP_WORDS.has(w)));
  return [...words].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, max);
}

/** A search's hit: the item's key and time (a fact's valid_from, an episode's created_at), for recency. */
interface RankedHit {
  key: string;
  at: Date;
}

/** The first load reads this many candidates per item asked for; the rest only if too few of them could be used. */
const LOAD_WINDOW_FACTOR = 2;

const EPISODE_COLUMNS = 'episode_id, collection, conversation_id, kind, summary, topics, first_seq, last_seq, run_id, created_at';
const DAY_MS = 86_400_000;

export function episodeToProto(row: EpisodeRow): memoryV1.Episode {
  return {
    episodeId: row.episode_id,
    collection: row.collection,
    conversationId: row.conversation_id,
    kind: row.kind,
    summary: row.summary,
    topics: row.topics,
    firstSeq: Number(row.first_seq),
    lastSeq: Number(row.last_seq),
    runId: row.run_id ?? '',
    createdAt: row.created_at,
  };
}

/**
 * Hybrid recall over a tenant's current facts and episode summaries: full text (ts_rank over
 * an OR of the query's words), trigram word similarity per query word (typos, names) and, when
 * the vector index is open and the embeddings endpoint answers, cosine nearest neighbours. The
 * rankings are fused by reciprocal rank with recency decay. When nothing matches, the
 * conversation's recent messages are returned instead ("recent_history").
 */
export class RecallEngine {
  constructor(
    private readonly pool: pg.Pool,
    private readonly vectors: VectorIndex | undefined,
    private readonly settings: RecallSettings,
    private readonly logger: Logger,
  ) {}

  async recall(q: RecallQuery): Promise<memoryV1.RecallResponse> {
    // The searches run at once, each on its own pooled connection (the trigram threshold and the
    // HNSW scan mode are connection settings, see server.ts); the vector search starts as soon as
    // the query's embedding arrives. Each search returns its items' times with their keys, so the
    // fusion needs no rows; then only the best fused candidates are loaded (usually one round trip).
    const embedded = this.embed(q.query);
    const [fulltext, trigram, vector] = await Promise.all([
      this.fulltext(q),
      this.trigram(q),
      embedded.then(async ({ vector: v }) => (v && this.vectors ? this.vectors.search(this.pool, q.tenantId, q.collectionPrefix, v, this.settings.candidates, q.includeEpisodes, this.settings.vectorMinSimilarity) : undefined)),
    ]);
    const { vector: queryVector, vectorError } = await embedded;
    const times = new Map<string, Date>();
    const keysOf = (hits: readonly RankedHit[]) => hits.map((h) => (times.set(h.key, h.at), h.key));
    const rankings: Ranking[] = [
      { search: 'fulltext', keys: keysOf(fulltext) },
      { search: 'trigram', keys: keysOf(trigram) },
      ...(vector ? [{ search: 'vector', keys: keysOf(vector.map((n) => ({ key: `${n.kind === 'fact' ? 'f' : 'e'}:${n.id}`, at: n.at }))) }] : []),
    ];
    if (times.size === 0) return this.recentHistory(q, vectorError);
    const now = Date.now();
    const fused = fuseRankings(rankings, (key) => (now - (times.get(key)?.getTime() ?? now)) / DAY_MS, this.settings);
    const picked = await this.pick(q, fused);
    return { items: picked.items, searchMode: queryVector ? 'hybrid' : 'keyword', vectorError, droppedForBudget: picked.dropped, usedTokens: picked.used };
  }

  /**
   * The fused candidates, best first, that fit the limit and the budget. A text already taken is
   * not injected again (several episodes of the same question summarise alike, and a repeated
   * line tells the model nothing new); it is not counted as dropped either. Candidates are loaded
   * a window at a time (`limit` x {@link LOAD_WINDOW_FACTOR}, then the rest), so a recall reads
   * the rows it may inject rather than every candidate the searches ranked.
   */
  private async pick(q: RecallQuery, fused: readonly FusedItem[]): Promise<{ items: memoryV1.RecalledItem[]; dropped: number; used: number }> {
    const items: memoryV1.RecalledItem[] = [];
    const texts = new Set<string>();
    let used = 0;
    let dropped = 0;
    let next = 0;
    while (next < fused.length && items.length < q.limit) {
      const window = fused.slice(next, next === 0 ? Math.max(1, q.limit) * LOAD_WINDOW_FACTOR : fused.length);
      next += window.length;
      const { facts, episodes } = await this.load(q.tenantId, window.map((item) => item.key));
      for (const item of window) {
        const fact = facts.get(item.key);
        const episode = episodes.get(item.key);
        if (!fact && !episode) continue;
        const text = fact ? factText(fact) : `earlier (${episode!.created_at.toISOString().slice(0, 10)}): ${episode!.summary}`;
        if (texts.has(text)) continue;
        const tokens = estimateTokens(text);
        if (items.length >= q.limit || (q.tokenBudget > 0 && used + tokens > q.tokenBudget)) {
          dropped += 1;
          continue;
        }
        texts.add(text);
        used += tokens;
        items.push({
          ...(fact ? { fact: factToProto(fact) } : { episode: episodeToProto(episode!) }),
          score: item.score,
          matchedBy: item.matchedBy,
          why: whyRecalled(item),
          text,
          estimatedTokens: tokens,
        });
      }
    }
    // Candidates never loaded were relevant but left out for the limit.
    return { items, dropped: dropped + (fused.length - next), used };
  }

  /** The query's embedding, or why there is none (no vector index, or the endpoint failed or was slow). */
  private async embed(query: string): Promise<{ vector?: number[]; vectorError: string }> {
    if (!this.vectors) return { vectorError: '' };
    try {
      return { vector: await this.vectors.embedQuery(query, AbortSignal.timeout(this.settings.embeddingTimeoutMs)), vectorError: '' };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'recall falls back to keyword + trigram');
      return { vectorError: `embeddings unavailable: ${(err as Error).message}` };
    }
  }

  /** Full-text ranking: item keys and times, best first. */
  private async fulltext(q: RecallQuery): Promise<RankedHit[]> {
    const limit = this.settings.candidates;
    const tsquery = orQuery(q.query);
    const prefix = collectionPrefixSql('$2');
    if (!tsquery) return [];
    // Each query term brings at most `perTerm` facts (and episodes), read from the tenant's own
    // GIN entries: a term that many facts share (a common predicate like "live") cannot tell them
    // apart anyway, and ranking all of its matches would make recall cost grow with the tenant's
    // size. Selective terms bring all their matches; only that bounded set is ranked.
    const terms = tsquery.split(' | ');
    const { rows } = await this.pool.query<RankedHit>(
      `SELECT key, at FROM (
         SELECT 'f:' || c.fact_id AS key, ts_rank(c.search_vector, to_tsquery('english', $3)) AS rank, c.valid_from AS at
         FROM (SELECT DISTINCT ON (f.fact_id) f.fact_id, f.search_vector, f.valid_from FROM unnest($6::text[]) AS t,
                 LATERAL (SELECT fact_id, search_vector, valid_from FROM facts
                          WHERE tenant_id = $1 AND valid_to IS NULL AND ${prefix} AND search_vector @@ plainto_tsquery('english', t) LIMIT $7) AS f) AS c
         UNION ALL
         SELECT 'e:' || c.episode_id, ts_rank(c.search_vector, to_tsquery('english', $3)), c.created_at
         FROM (SELECT DISTINCT ON (e.episode_id) e.episode_id, e.search_vector, e.created_at FROM unnest($6::text[]) AS t,
                 LATERAL (SELECT episode_id, search_vector, created_at FROM episodes
                          WHERE $5 AND tenant_id = $1 AND ${prefix} AND search_vector @@ plainto_tsquery('english', t) LIMIT $7) AS e) AS c) AS hits
       ORDER BY rank DESC, at DESC, key LIMIT $4`,
      [q.tenantId, q.collectionPrefix, tsquery, limit, q.includeEpisodes, terms, this.settings.perTermCandidates],
    );
    return rows;
  }

  /** Trigram ranking (names, typos): item keys and times, best first. */
  private async trigram(q: RecallQuery): Promise<RankedHit[]> {
    const limit = this.settings.candidates;
    const words = trigramWords(q.query, this.settings.trigramWords);
    const prefix = collectionPrefixSql('$2');
    if (words.length === 0) return [];
    // Each query word is compared with the tenant's vocabulary (recall_terms: its distinct words,
    // a few thousand rows, trigram-indexed), not with every text. Its closest words, best first,
    // fetch their facts through the full-text index until the word has `limit` candidates; those
    // are scored by word similarity against their whole text, as a full scan would score them.
    // The closest words come from a sorted subquery, so the nested loop reads them in that order
    // and stops at `limit` facts: a query word that matches a word of the vocabulary exactly is
    // usually served by that word alone instead of fetching facts for all its near words. Each
    // text's similarity is computed once: `sim >= threshold` is what `<%` tests.
    const { rows } = await this.pool.query<RankedHit>(
      `WITH near AS (
         SELECT q.w, t.term, t.sim FROM unnest($3::text[]) AS q(w),
           LATERAL (SELECT term, word_similarity(q.w, term) AS sim FROM recall_terms
                    WHERE tenant_id = $1 AND q.w <% term ORDER BY sim DESC, term LIMIT $6) AS t)
       SELECT key, at FROM (
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
      [q.tenantId, q.collectionPrefix, words, limit, q.includeEpisodes, this.settings.trigramTerms, this.settings.trigramThreshold],
    );
    return rows;
  }

  private async load(tenantId: string, keys: readonly string[]): Promise<{ facts: Map<string, FactRow>; episodes: Map<string, EpisodeRow> }> {
    const factIds = [...new Set(keys.filter((k) => k.startsWith('f:')).map((k) => k.slice(2)))];
    const episodeIds = [...new Set(keys.filter((k) => k.startsWith('e:')).map((k) => k.slice(2)))];
    // A kind with nothing to load costs no statement (and no pooled connection).
    const none = { rows: [] };
    const [factRows, episodeRows] = await Promise.all([
      factIds.length ? this.pool.query<FactRow>(`SELECT ${FACT_COLUMNS} FROM facts WHERE tenant_id = $1 AND fact_id = ANY($2::uuid[]) AND valid_to IS NULL`, [tenantId, factIds]) : none,
      episodeIds.length ? this.pool.query<EpisodeRow>(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE tenant_id = $1 AND episode_id = ANY($2::uuid[])`, [tenantId, episodeIds]) : none,
    ]);
    return {
      facts: new Map(factRows.rows.map((r) => [`f:${r.fact_id}`, r])),
      episodes: new Map(episodeRows.rows.map((r) => [`e:${r.episode_id}`, r])),
    };
  }

  /** The last fallback: the conversation's (or, without one, the tenant's) latest user and assistant messages. */
  private async recentHistory(q: RecallQuery, vectorError: string): Promise<memoryV1.RecallResponse> {
    const { rows } = await this.pool.query<{ conversation_id: string; seq: string; role: string; message_json: string; created_at: Date }>(
      `SELECT conversation_id, seq, role, message_json, created_at FROM messages
       WHERE tenant_id = $1 AND ($2 = '' OR conversation_id = $2) AND role IN ('user', 'assistant')
       ORDER BY created_at DESC, seq DESC LIMIT $3`,
      [q.tenantId, q.conversationId, Math.min(q.limit, this.settings.historyMessages)],
    );
    const items: memoryV1.RecalledItem[] = [];
    let used = 0;
    for (const row of rows) {
      const content = (JSON.parse(row.message_json) as { content?: unknown }).content;
      if (typeof content !== 'string' || content === '') continue;
      const text = `${row.role} said (${row.created_at.toISOString().slice(0, 10)}): ${content}`;
      const tokens = estimateTokens(text);
      if (q.tokenBudget > 0 && used + tokens > q.tokenBudget) break;
      used += tokens;
      items.push({
        message: { conversationId: row.conversation_id, seq: Number(row.seq), role: row.role, text: content, createdAt: row.created_at },
        score: 0,
        matchedBy: ['recent_history'],
        why: 'no fact or episode matched; recent history',
        text,
        estimatedTokens: tokens,
      });
    }
    return { items: items.reverse(), searchMode: 'recent_history', vectorError, droppedForBudget: 0, usedTokens: used };
  }
}
