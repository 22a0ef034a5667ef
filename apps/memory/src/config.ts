import { CollectionName, TenantTiersEnv } from '@platform/contracts';
import { env, grpcServerEnv, grpcTlsEnv, loggingEnv, natsEnv, postgresEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';
import type { RecallSettings } from './recall/recall-engine.js';

/** Environment of the memory service. */
export const MemoryConfig = z
  .object({
    /** DATABASE_URL, DATABASE_POOL_MAX. */
    ...postgresEnv(),
    /** GRPC_HOST, GRPC_PORT, and GRPC_HEALTH_PORT (plaintext, grpc.health.v1 only, for probes without a certificate; unset: none). */
    ...grpcServerEnv({ port: 50051 }),
    /** GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: mutual TLS with the platform CA (docs/security.md). */
    ...grpcTlsEnv,
    /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
    ...natsEnv,
    /** Messages one ListMessages call returns when the caller sets no limit, and the most it may ask for. */
    MEMORY_PAGE_SIZE: env.positiveInt().default(500),
    MEMORY_MAX_PAGE_SIZE: env.positiveInt().default(5_000),
    /**
     * Message bytes one ListMessages page holds at most (a page always holds one message): pages stay
     * far below the gRPC message limit whatever the messages' sizes. Also the most a caller may ask for.
     */
    MEMORY_MAX_PAGE_BYTES: env.positiveInt().default(8 * 1024 * 1024),
    /** Most messages one AppendMessages call may carry, and the largest single message in bytes. */
    MEMORY_MAX_APPEND_MESSAGES: env.positiveInt().default(1_000),
    MEMORY_MAX_MESSAGE_BYTES: env.positiveInt().default(4 * 1024 * 1024),

    // Model provider for extraction, Q&A and session summaries (OpenAI-compatible). The
    // MEMORY_LLM_* settings fall back to the orchestrator's OPENAI_BASE_URL / OPENAI_API_KEY.
    OPENAI_BASE_URL: env.url().default('https://api.openai.com/v1'),
    OPENAI_API_KEY: z.string().default(''),
    MEMORY_LLM_BASE_URL: env.url().optional(),
    MEMORY_LLM_API_KEY: z.string().optional(),
    /** Model that extracts knowledge from finished turns and summarises sessions. */
    MEMORY_EXTRACTION_MODEL: z.string().min(1).default('gpt-4o-mini'),
    /** Model that answers QueryMemory (default: the extraction model). */
    MEMORY_QA_MODEL: z.string().min(1).optional(),
    MEMORY_LLM_TIMEOUT_MS: env.positiveInt().default(60_000),
    /** Model calls per extraction when the output does not validate (the last error is fed back). */
    MEMORY_EXTRACTION_ATTEMPTS: env.positiveInt().default(2),
    /**
     * Turns of one tenant and collection sent to the extraction model in one request (one system
     * prompt, one answer with an entry per turn, each validated on its own). 1 = one request per
     * turn, as before. Turns are only grouped within an ingestion batch.
     */
    MEMORY_EXTRACTION_TURNS_PER_REQUEST: env.positiveInt().max(32).default(8),
    /** Characters of one tool result given to the extractor (the rest is cut, marked as cut). */
    MEMORY_EXTRACTION_TOOL_RESULT_CHARS: env.positiveInt().default(2_000),

    // Embeddings (optional): vectors join recall when a model is set and pgvector is installed.
    /** Embeddings model, e.g. text-embedding-3-small; empty = no vectors (keyword + trigram recall). */
    MEMORY_EMBEDDING_MODEL: z.string().default(''),
    MEMORY_EMBEDDING_BASE_URL: env.url().optional(),
    MEMORY_EMBEDDING_API_KEY: z.string().optional(),
    MEMORY_EMBEDDING_DIMENSIONS: env.positiveInt().max(2_000).default(256),
    MEMORY_EMBEDDING_TIMEOUT_MS: env.positiveInt().default(5_000),

    // Ingestion (JetStream work queue).
    /** Deliveries of one turn before it is dead-lettered with the last error. */
    MEMORY_INGEST_MAX_DELIVERIES: env.positiveInt().default(5),
    /** How long a delivery may stay unacknowledged before NATS redelivers it. */
    MEMORY_INGEST_ACK_WAIT_MS: env.positiveInt().default(120_000),
    /** First redelivery delay after a failure; doubles per delivery. */
    MEMORY_INGEST_RETRY_BASE_MS: env.positiveInt().default(1_000),
    MEMORY_INGEST_MAX_AGE_MS: env.positiveInt().default(7 * 24 * 3_600_000),
    MEMORY_DEAD_LETTER_MAX_AGE_MS: env.positiveInt().default(30 * 24 * 3_600_000),
    /** Model calls (turn extractions) one ingestion batch runs at once. */
    MEMORY_INGEST_CONCURRENCY: env.positiveInt().default(4),
    /**
     * Turns taken off the queue and stored together: one transaction, one statement per table, one
     * embeddings request per batch. 1 = one turn at a time.
     */
    MEMORY_INGEST_BATCH_SIZE: env.positiveInt().max(500).default(50),
    /** How long a batch waits for more turns after its first one arrived (the most a lone turn waits). */
    MEMORY_INGEST_BATCH_WAIT_MS: env.nonNegativeInt().max(60_000).default(200),
    /**
     * How long a batch that is not full waits, at most, for this replica's running recalls to end
     * before it is stored (recalls hold up turns; ingestion does not). A full batch (a backlog) does
     * not wait. 0 = never wait.
     */
    MEMORY_INGEST_YIELD_MS: env.nonNegativeInt().max(60_000).default(500),
    /** How often consumer lag is read for the metric. */
    MEMORY_LAG_POLL_MS: env.positiveInt().default(5_000),
    /**
     * Fault injection for crash tests: wait this long between a turn's commit and its ack, so a
     * test can kill the process in between. Leave 0 in production.
     */
    MEMORY_FAULT_ACK_DELAY_MS: env.nonNegativeInt().default(0),
    /** Collection of a turn's knowledge when the turn names none. */
    MEMORY_DEFAULT_COLLECTION: CollectionName.default('default'),
    /**
     * Predicates that hold one value at a time per subject (a new value supersedes the old one),
     * beside those the extractor marks single-valued.
     */
    MEMORY_SINGLE_VALUED_PREDICATES: env
      .list()
      .default([
        'lives_in',
        'name',
        'age',
        'works_at',
        'job_title',
        'email',
        'phone',
        'birthday',
        'timezone',
        'located_in',
        'married_to',
        'status',
      ]),

    // Recall.
    MEMORY_RECALL_DEFAULT_LIMIT: env.positiveInt().default(8),
    MEMORY_RECALL_MAX_LIMIT: env.positiveInt().default(100),
    /** Candidates each search (full text, trigram, vector) contributes before fusion. */
    MEMORY_RECALL_CANDIDATES: env.positiveInt().default(50),
    /** Reciprocal rank fusion constant k: score = sum 1 / (k + rank). */
    MEMORY_RECALL_RRF_K: env.positiveInt().default(60),
    /** Recency decay: an item's fused score halves every this many days (0 = no decay). */
    MEMORY_RECALL_HALF_LIFE_DAYS: z.coerce.number().min(0).default(90),
    /** Lowest trigram word similarity that counts as a match (pg_trgm's own default is 0.6). */
    MEMORY_RECALL_TRIGRAM_THRESHOLD: z.coerce.number().min(0).max(1).default(0.5),
    /** Facts one query term may bring to full text or trigram search: bounds the cost of terms many facts share. */
    MEMORY_RECALL_PER_TERM_CANDIDATES: env.positiveInt().default(200),
    /**
     * How long a tenant's "common" lexemes (those the planner's statistics estimate in more facts
     * than the per-term cap: they rank recall's candidates but pick none) are used before they are
     * read again from pg_stats (0 = every recall).
     */
    MEMORY_RECALL_COMMON_TERMS_REFRESH_MS: env.nonNegativeInt().default(600_000),
    /**
     * Connections, out of DATABASE_POOL_MAX, that run recall's trigram search, each reusing one generic
     * plan of it (`plan_cache_mode = force_generic_plan`) instead of planning every call. Unset: a
     * quarter of DATABASE_POOL_MAX; 0: the trigram search shares the other connections.
     */
    MEMORY_RECALL_TRIGRAM_CONNECTIONS: env.nonNegativeInt().optional(),
    /** Query words (the longest, stop words left out) compared by trigram. */
    MEMORY_RECALL_TRIGRAM_WORDS: env.positiveInt().max(50).default(6),
    /** Vocabulary words (the closest by trigram similarity) each of those query words is matched to. */
    MEMORY_RECALL_TRIGRAM_TERMS: env.positiveInt().max(100).default(8),
    /** Lowest cosine similarity for a vector neighbour to count as a match (nearest is not always near). */
    MEMORY_RECALL_VECTOR_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.25),
    /** Nearest neighbours the vector search contributes before fusion (HNSW work grows with it). */
    MEMORY_RECALL_VECTOR_CANDIDATES: env.positiveInt().default(20),
    /**
     * pgvector's `hnsw.ef_search` on the service's connections: how many candidates the HNSW graph
     * walk keeps (its work grows with it). Unset: the vector candidate count, so the walk holds as many
     * as recall takes (the iterative scan walks on when too few of them are current).
     */
    MEMORY_RECALL_VECTOR_EF_SEARCH: env.positiveInt().max(1_000).optional(),
    /** Messages the recent-history fallback returns at most. */
    MEMORY_RECALL_HISTORY_MESSAGES: env.positiveInt().default(6),

    // Sessions, working memory.
    /** A conversation idle this long is summarised into a session episode (0 = never). */
    MEMORY_SESSION_IDLE_MS: env.nonNegativeInt().default(30 * 60_000),
    MEMORY_SESSION_SWEEP_MS: env.positiveInt().default(60_000),
    /** Working memory of a run that never finished is dropped after this long. */
    MEMORY_WORKING_MEMORY_TTL_MS: env.positiveInt().default(24 * 3_600_000),
    MEMORY_WORKING_MEMORY_MAX_KEYS: env.positiveInt().default(200),
    MEMORY_WORKING_MEMORY_MAX_VALUE_BYTES: env.positiveInt().default(64 * 1024),
    /** Serve memory_search / memory_save / working_memory_* as tools over NATS. */
    MEMORY_TOOLS_ENABLED: env.boolean().default(true),
    /** Tier limits and quotas as JSON (the same value for every service; here `facts`), see docs/operations.md. */
    TENANT_TIERS: TenantTiersEnv,
    /** The tier of requests that name none (or one TENANT_TIERS does not define); memory_save tool calls use it. */
    DEFAULT_TIER: z.string().default('default'),

    ...shutdownEnv(),
    ...loggingEnv,
  })
  .refine(
    (config) =>
      config.MEMORY_RECALL_TRIGRAM_CONNECTIONS === undefined ||
      config.MEMORY_RECALL_TRIGRAM_CONNECTIONS < config.DATABASE_POOL_MAX,
    {
      // The rest of the service (history, ingestion, the other searches) needs connections too.
      message: 'must be less than DATABASE_POOL_MAX',
      path: ['MEMORY_RECALL_TRIGRAM_CONNECTIONS'],
    },
  );
export type MemoryConfig = z.infer<typeof MemoryConfig>;

/** Recall's settings from the configuration. */
export function recallSettings(config: MemoryConfig): RecallSettings {
  return {
    k: config.MEMORY_RECALL_RRF_K,
    halfLifeDays: config.MEMORY_RECALL_HALF_LIFE_DAYS,
    candidates: config.MEMORY_RECALL_CANDIDATES,
    trigramThreshold: config.MEMORY_RECALL_TRIGRAM_THRESHOLD,
    trigramWords: config.MEMORY_RECALL_TRIGRAM_WORDS,
    trigramTerms: config.MEMORY_RECALL_TRIGRAM_TERMS,
    perTermCandidates: config.MEMORY_RECALL_PER_TERM_CANDIDATES,
    commonTermsRefreshMs: config.MEMORY_RECALL_COMMON_TERMS_REFRESH_MS,
    historyMessages: config.MEMORY_RECALL_HISTORY_MESSAGES,
    embeddingTimeoutMs: config.MEMORY_EMBEDDING_TIMEOUT_MS,
    vectorMinSimilarity: config.MEMORY_RECALL_VECTOR_MIN_SIMILARITY,
    vectorCandidates: config.MEMORY_RECALL_VECTOR_CANDIDATES,
  };
}

/** How DATABASE_POOL_MAX is split between recall's trigram search (its own connections) and the rest. */
export function memoryConnections(
  config: Pick<MemoryConfig, 'DATABASE_POOL_MAX' | 'MEMORY_RECALL_TRIGRAM_CONNECTIONS'>,
): { shared: number; trigram: number } {
  const trigram = config.MEMORY_RECALL_TRIGRAM_CONNECTIONS ?? Math.floor(config.DATABASE_POOL_MAX / 4);
  return { shared: config.DATABASE_POOL_MAX - trigram, trigram };
}
