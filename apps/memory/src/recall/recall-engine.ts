import type { memoryV1 } from '@platform/proto';
import type { Logger } from '@platform/service-kit';
import type pg from 'pg';
import { FACT_COLUMNS, factText, factToProto, type FactRow } from '../knowledge/fact-rows.js';
import { CommonLexemes } from './common-lexemes.js';
import { fulltextRanking, trigramRanking, type RankedHit } from './keyword-searches.js';
import {
  estimateTokens,
  fuseRankings,
  whyRecalled,
  type FusedItem,
  type FusionSettings,
  type Ranking,
} from './rank-fusion.js';
import type { VectorIndex } from './vector-index.js';
import { abortableQueries } from './abortable-queries.js';
import type { ForegroundActivity } from '../ingestion/foreground-activity.js';

export interface RecallSettings extends FusionSettings {
  candidates: number;
  trigramThreshold: number;
  trigramWords: number;
  /** Vocabulary words (closest first) one query word is matched to. */
  trigramTerms: number;
  /** Facts one query term may bring to a search (bounds recall cost on common terms). */
  perTermCandidates: number;
  /** How long a tenant's common lexemes (read from the planner's statistics) are used before they are read again. */
  commonTermsRefreshMs: number;
  historyMessages: number;
  embeddingTimeoutMs: number;
  vectorMinSimilarity: number;
  /** Nearest neighbours the vector search contributes to fusion. */
  vectorCandidates: number;
}

export interface RecallEngineOptions {
  /** Runs the trigram search: connections that reuse a generic plan of it (trigram-connections.ts); without it, the trigram search shares the pool. */
  trigramPool?: pg.Pool;
  /** Counts every recall while it runs, so ingestion can let recalls go first. */
  foreground?: ForegroundActivity;
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
  occurrences: number;
  last_seen_at: Date;
}

/** The first load reads this many candidates per item asked for; the rest only if too few of them could be used. */
const LOAD_WINDOW_FACTOR = 2;

const EPISODE_COLUMNS =
  'episode_id, collection, conversation_id, kind, summary, topics, first_seq, last_seq, run_id, created_at, occurrences, last_seen_at';
const DAY_MS = 86_400_000;
/** Tenants whose common lexemes one process keeps (a few kB each). */
const COMMON_LEXEMES_TENANTS = 10_000;

function episodeToProto(row: EpisodeRow): memoryV1.Episode {
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
    occurrences: row.occurrences,
    lastSeenAt: row.last_seen_at,
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
  private readonly common: CommonLexemes;

  private readonly trigramPool: pg.Pool | undefined;
  private readonly foreground: ForegroundActivity | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly vectors: VectorIndex | undefined,
    private readonly settings: RecallSettings,
    private readonly logger: Logger,
    options: RecallEngineOptions = {},
  ) {
    this.common = new CommonLexemes(pool, {
      perTermCandidates: settings.perTermCandidates,
      refreshMs: settings.commonTermsRefreshMs,
      maxTenants: COMMON_LEXEMES_TENANTS,
    });
    this.trigramPool = options.trigramPool;
    this.foreground = options.foreground;
  }

  /**
   * `signal` is the caller's: once it aborts (the caller's deadline passed), no further statement
   * starts and the recall rejects with its reason, so a recall nobody waits for stops taking
   * connections from the ones still waited for.
   */
  recall(q: RecallQuery, signal?: AbortSignal): Promise<memoryV1.RecallResponse> {
    return this.foreground ? this.foreground.track(() => this.search(q, signal)) : this.search(q, signal);
  }

  private async search(q: RecallQuery, signal: AbortSignal | undefined): Promise<memoryV1.RecallResponse> {
    // The searches run at once, each on its own pooled connection (the trigram threshold and the
    // HNSW scan mode are connection settings, see server.ts); the vector search starts as soon as
    // the query's embedding arrives. Each search returns its items' times with their keys, so the
    // fusion needs no rows; then only the best fused candidates are loaded. Two round trips to
    // Postgres on the critical path: the rankings, then the items (three when the tenant's common
    // lexemes are due to be read again, or when too few of the first loaded candidates were usable).
    signal?.throwIfAborted();
    const db = abortableQueries(this.pool, signal);
    const embedded = this.embed(q.query, signal);
    const common = this.common.of(q.tenantId);
    const [fulltext, trigram, vector] = await Promise.all([
      common.then((c) => fulltextRanking(db, q, c, this.settings)),
      common.then((c) =>
        trigramRanking(this.trigramPool ? abortableQueries(this.trigramPool, signal) : db, q, c, this.settings),
      ),
      embedded.then(async ({ vector: v }) =>
        v && this.vectors
          ? this.vectors.search(
              db,
              q.tenantId,
              q.collectionPrefix,
              v,
              this.settings.vectorCandidates,
              q.includeEpisodes,
              this.settings.vectorMinSimilarity,
            )
          : undefined,
      ),
    ]);
    const { vector: queryVector, vectorError } = await embedded;
    const times = new Map<string, Date>();
    const keysOf = (hits: readonly RankedHit[]) => hits.map((h) => (times.set(h.key, h.at), h.key));
    const rankings: Ranking[] = [
      { search: 'fulltext', keys: keysOf(fulltext) },
      { search: 'trigram', keys: keysOf(trigram) },
      ...(vector
        ? [
            {
              search: 'vector',
              keys: keysOf(vector.map((n) => ({ key: `${n.kind === 'fact' ? 'f' : 'e'}:${n.id}`, at: n.at }))),
            },
          ]
        : []),
    ];
    if (times.size === 0) return this.recentHistory(db, q, vectorError);
    const now = Date.now();
    const fused = fuseRankings(rankings, (key) => (now - (times.get(key)?.getTime() ?? now)) / DAY_MS, this.settings);
    const picked = await this.pick(db, q, fused);
    return {
      items: picked.items,
      searchMode: queryVector ? 'hybrid' : 'keyword',
      vectorError,
      droppedForBudget: picked.dropped,
      usedTokens: picked.used,
    };
  }

  /**
   * The fused candidates, best first, that fit the limit and the budget. A text already taken is
   * not injected again (session episodes of the same question may summarise alike, and a repeated
   * line tells the model nothing new); it is not counted as dropped either. Candidates are loaded
   * a window at a time (`limit` x {@link LOAD_WINDOW_FACTOR}, then the rest), so a recall reads
   * the rows it may inject rather than every candidate the searches ranked.
   */
  private async pick(
    db: Pick<pg.Pool, 'query'>,
    q: RecallQuery,
    fused: readonly FusedItem[],
  ): Promise<{ items: memoryV1.RecalledItem[]; dropped: number; used: number }> {
    const items: memoryV1.RecalledItem[] = [];
    const texts = new Set<string>();
    let used = 0;
    let dropped = 0;
    let next = 0;
    while (next < fused.length && items.length < q.limit) {
      const window = fused.slice(next, next === 0 ? Math.max(1, q.limit) * LOAD_WINDOW_FACTOR : fused.length);
      next += window.length;
      const { facts, episodes } = await this.load(
        db,
        q.tenantId,
        window.map((item) => item.key),
      );
      for (const item of window) {
        const fact = facts.get(item.key);
        const episode = episodes.get(item.key);
        if (!fact && !episode) continue;
        const text = fact
          ? factText(fact)
          : `earlier (${episode!.last_seen_at.toISOString().slice(0, 10)}): ${episode!.summary}`;
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

  /** The query's embedding, or why there is none (no vector index, or the endpoint failed or was slow); rejects when the caller gave up. */
  private async embed(
    query: string,
    signal: AbortSignal | undefined,
  ): Promise<{ vector?: number[]; vectorError: string }> {
    if (!this.vectors) return { vectorError: '' };
    const timeout = AbortSignal.timeout(this.settings.embeddingTimeoutMs);
    try {
      return {
        vector: await this.vectors.embedQuery(query, signal ? AbortSignal.any([timeout, signal]) : timeout),
        vectorError: '',
      };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      this.logger.warn({ err: (err as Error).message }, 'recall falls back to keyword + trigram');
      return { vectorError: `embeddings unavailable: ${(err as Error).message}` };
    }
  }

  private async load(
    db: Pick<pg.Pool, 'query'>,
    tenantId: string,
    keys: readonly string[],
  ): Promise<{ facts: Map<string, FactRow>; episodes: Map<string, EpisodeRow> }> {
    const factIds = [...new Set(keys.filter((k) => k.startsWith('f:')).map((k) => k.slice(2)))];
    const episodeIds = [...new Set(keys.filter((k) => k.startsWith('e:')).map((k) => k.slice(2)))];
    // A kind with nothing to load costs no statement (and no pooled connection).
    const none = { rows: [] };
    const [factRows, episodeRows] = await Promise.all([
      factIds.length
        ? db.query<FactRow>(
            {
              name: 'recall-load-facts',
              text: `SELECT ${FACT_COLUMNS} FROM facts WHERE tenant_id = $1 AND fact_id = ANY($2::uuid[]) AND valid_to IS NULL`,
            },
            [tenantId, factIds],
          )
        : none,
      episodeIds.length
        ? db.query<EpisodeRow>(
            {
              name: 'recall-load-episodes',
              text: `SELECT ${EPISODE_COLUMNS} FROM episodes WHERE tenant_id = $1 AND episode_id = ANY($2::uuid[])`,
            },
            [tenantId, episodeIds],
          )
        : none,
    ]);
    return {
      facts: new Map(factRows.rows.map((r) => [`f:${r.fact_id}`, r])),
      episodes: new Map(episodeRows.rows.map((r) => [`e:${r.episode_id}`, r])),
    };
  }

  /** The last fallback: the conversation's (or, without one, the tenant's) latest user and assistant messages. */
  private async recentHistory(
    db: Pick<pg.Pool, 'query'>,
    q: RecallQuery,
    vectorError: string,
  ): Promise<memoryV1.RecallResponse> {
    const { rows } = await db.query<{
      conversation_id: string;
      seq: string;
      role: string;
      message_json: string;
      created_at: Date;
    }>(
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
        message: {
          conversationId: row.conversation_id,
          seq: Number(row.seq),
          role: row.role,
          text: content,
          createdAt: row.created_at,
        },
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
