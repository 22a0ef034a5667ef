import { OpenAIEmbeddings, OpenAIStructuredOutput } from '@platform/llm';
import { memoryV1 } from '@platform/proto';
import { quotasFor } from '@platform/contracts';
import {
  connectNats,
  GrpcServer,
  openGrpcTransport,
  openServiceDatabase,
  unaryHandler,
  type Logger,
  type NatsConnection,
} from '@platform/service-kit';
import type { ToolRunner } from '@platform/tool-sdk';
import type pg from 'pg';
import { fileURLToPath } from 'node:url';
import { memoryConnections, recallSettings, type MemoryConfig } from './config.js';
import { MEMORY_CALLERS } from './grpc-callers.js';
import { Extractor } from './extraction/extractor.js';
import { ensureIngestStreams, IngestConsumer } from './ingestion/ingest-consumer.js';
import { TurnIngestor } from './ingestion/turn-ingestor.js';
import { FactQueries } from './knowledge/fact-queries.js';
import { ConversationErasure } from './knowledge/conversation-erasure.js';
import { erasureServiceImplementation } from './erasure-service.js';
import { FactSaver } from './knowledge/fact-saver.js';
import { RunEndListener } from './knowledge/run-end-listener.js';
import { TurnBatchWriter } from './knowledge/turn-batch-writer.js';
import { TurnStore } from './knowledge/turn-store.js';
import { WorkingMemoryStore } from './knowledge/working-memory-store.js';
import { knowledgeServiceImplementation, type KnowledgeLimits } from './knowledge-service.js';
import { memoryServiceImplementation, type HistoryLimits } from './memory-service.js';
import { ConversationForks } from './conversation-forks.js';
import { MessageStore } from './message-store.js';
import { MemoryAnswerer } from './recall/memory-answerer.js';
import { RecallEngine } from './recall/recall-engine.js';
import { ForegroundActivity } from './ingestion/foreground-activity.js';
import { openTrigramPool } from './recall/trigram-connections.js';
import { vectorConnectionSettings, VectorIndex, type VectorStatus } from './recall/vector-index.js';
import { SessionSweeper } from './sessions/session-sweeper.js';
import { serveMemoryTools } from './tools/memory-tools.js';

export const MEMORY_SCHEMA = 'memory';
const MEMORY_SERVICE_NAME = 'memory.v1.MemoryService';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** Which recall this process runs: "hybrid" (full text + trigram + pgvector) or "keyword" (full text + trigram). */
interface SearchStatus {
  mode: 'hybrid' | 'keyword';
  vectors: VectorStatus;
}

/** A started memory service: migrated database, gRPC server listening, ingestion consuming. */
export interface MemoryServer {
  readonly port: number;
  readonly search: SearchStatus;
  readonly ingest: IngestConsumer;
  stop(): Promise<void>;
}

/** What the history RPCs accept and return at most, from the environment variables. */
function compileHistoryLimits(config: MemoryConfig): HistoryLimits {
  return {
    pageSize: config.MEMORY_PAGE_SIZE,
    maxPageSize: config.MEMORY_MAX_PAGE_SIZE,
    maxPageBytes: config.MEMORY_MAX_PAGE_BYTES,
    maxAppendMessages: config.MEMORY_MAX_APPEND_MESSAGES,
    maxMessageBytes: config.MEMORY_MAX_MESSAGE_BYTES,
  };
}

/** What the knowledge RPCs and memory tools accept and return at most, from the environment variables. */
function compileKnowledgeLimits(config: MemoryConfig): KnowledgeLimits {
  return {
    recallDefaultLimit: config.MEMORY_RECALL_DEFAULT_LIMIT,
    recallMaxLimit: config.MEMORY_RECALL_MAX_LIMIT,
    pageSize: config.MEMORY_PAGE_SIZE,
    maxPageSize: config.MEMORY_MAX_PAGE_SIZE,
    workingMemoryMaxValueBytes: config.MEMORY_WORKING_MEMORY_MAX_VALUE_BYTES,
  };
}

export async function startMemoryServer(config: MemoryConfig, logger: Logger): Promise<MemoryServer> {
  const connections = memoryConnections(config);
  const pool = await openServiceDatabase({
    url: config.DATABASE_URL,
    schema: MEMORY_SCHEMA,
    migrationsDir,
    applicationName: 'memory',
    maxConnections: connections.shared,
    // Recall's searches run on separate connections at once, so what they rely on is set per connection.
    settings: {
      'pg_trgm.word_similarity_threshold': String(config.MEMORY_RECALL_TRIGRAM_THRESHOLD),
      ...vectorConnectionSettings(config.MEMORY_RECALL_VECTOR_EF_SEARCH ?? config.MEMORY_RECALL_VECTOR_CANDIDATES),
    },
    logger,
  });
  const closers: (() => Promise<void>)[] = [() => pool.end()];
  const trigramPool = openTrigramPool({
    url: config.DATABASE_URL,
    schema: MEMORY_SCHEMA,
    connections: connections.trigram,
    threshold: config.MEMORY_RECALL_TRIGRAM_THRESHOLD,
    logger,
  });
  if (trigramPool) closers.push(() => trigramPool.end());
  const closeAll = async () => {
    for (const close of closers.reverse())
      await close().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'error while stopping'));
  };
  try {
    return await wire(config, logger, { pool, trigramPool }, closers, closeAll);
  } catch (err) {
    await closeAll();
    throw err;
  }
}

async function wire(
  config: MemoryConfig,
  logger: Logger,
  pools: { pool: pg.Pool; trigramPool: pg.Pool | undefined },
  closers: (() => Promise<void>)[],
  closeAll: () => Promise<void>,
): Promise<MemoryServer> {
  const { pool } = pools;
  const llm = (model: string) =>
    new OpenAIStructuredOutput({
      baseURL: config.MEMORY_LLM_BASE_URL ?? config.OPENAI_BASE_URL,
      apiKey: config.MEMORY_LLM_API_KEY ?? config.OPENAI_API_KEY,
      apiKeyName: config.MEMORY_LLM_API_KEY !== undefined ? 'MEMORY_LLM_API_KEY' : 'OPENAI_API_KEY',
      model,
      timeoutMs: config.MEMORY_LLM_TIMEOUT_MS,
    });
  const embeddings = config.MEMORY_EMBEDDING_MODEL
    ? new OpenAIEmbeddings({
        baseURL: config.MEMORY_EMBEDDING_BASE_URL ?? config.MEMORY_LLM_BASE_URL ?? config.OPENAI_BASE_URL,
        apiKey: config.MEMORY_EMBEDDING_API_KEY ?? config.MEMORY_LLM_API_KEY ?? config.OPENAI_API_KEY,
        model: config.MEMORY_EMBEDDING_MODEL,
        dimensions: config.MEMORY_EMBEDDING_DIMENSIONS,
        timeoutMs: config.MEMORY_EMBEDDING_TIMEOUT_MS,
      })
    : undefined;
  const { index: vectors, status: vectorStatus } = await VectorIndex.open(pool, embeddings, logger);
  const search: SearchStatus = { mode: vectors ? 'hybrid' : 'keyword', vectors: vectorStatus };
  logger.info(
    { search },
    vectors
      ? 'recall runs hybrid search: full text + trigram + pgvector'
      : `recall runs keyword search (full text + trigram): ${vectorStatus.reason}`,
  );

  const singleValued = new Set(config.MEMORY_SINGLE_VALUED_PREDICATES);
  const messages = new MessageStore(pool);
  const workingMemory = new WorkingMemoryStore(pool, { maxKeys: config.MEMORY_WORKING_MEMORY_MAX_KEYS });
  const turns = new TurnStore(pool);
  const quotaOf = (tier: string) => {
    const { tier: applied, quotas } = quotasFor(config.TENANT_TIERS, tier, config.DEFAULT_TIER);
    return { maxFacts: quotas.facts, tier: applied };
  };
  const writer = new TurnBatchWriter(pool, singleValued, quotaOf);
  // Recalls hold up turns; ingestion's batches let the running ones finish first (MEMORY_INGEST_YIELD_MS).
  const foreground = new ForegroundActivity();
  const recall = new RecallEngine(pool, vectors, recallSettings(config), logger, {
    trigramPool: pools.trigramPool,
    foreground,
  });
  const extractionModel = llm(config.MEMORY_EXTRACTION_MODEL);
  const saver = new FactSaver(
    pool,
    { defaultCollection: config.MEMORY_DEFAULT_COLLECTION, singleValuedPredicates: singleValued, quotaOf },
    () => vectors,
  );
  const facts = new FactQueries(pool, () => vectors);

  // The consumer starts after the gRPC service is defined; DescribeMemory reads it when there is one.
  const started: { ingest?: IngestConsumer } = {};
  const grpc = new GrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    healthPort: config.GRPC_HEALTH_PORT,
    transport: openGrpcTransport(config, logger),
    logger,
  });
  grpc.addService(
    MEMORY_SERVICE_NAME,
    memoryV1.MemoryServiceService,
    {
      ...memoryServiceImplementation(
        messages,
        new ConversationForks(pool, messages),
        compileHistoryLimits(config),
        logger,
      ),
      ...erasureServiceImplementation(new ConversationErasure(pool, () => vectors), logger),
      ...knowledgeServiceImplementation({
        recall,
        answerer: new MemoryAnswerer(recall, llm(config.MEMORY_QA_MODEL ?? config.MEMORY_EXTRACTION_MODEL)),
        facts,
        saver,
        workingMemory,
        limits: compileKnowledgeLimits(config),
        logger,
      }),
      describeMemory: unaryHandler<memoryV1.DescribeMemoryRequest, memoryV1.DescribeMemoryResponse>(
        logger,
        'DescribeMemory',
        () =>
          Promise.resolve({
            searchMode: search.mode,
            vectorsEnabled: search.vectors.enabled,
            vectorsReason: search.vectors.reason,
            embeddingModel: search.vectors.model ?? '',
            embeddingDimensions: search.vectors.dimensions ?? 0,
            ingestLag: started.ingest?.currentLag ?? -1,
          }),
      ),
    },
    MEMORY_CALLERS,
  );

  const nc: NatsConnection = await connectNats({ config, name: 'memory', logger });
  closers.push(() => nc.drain());
  await ensureIngestStreams(nc, {
    maxAgeMs: config.MEMORY_INGEST_MAX_AGE_MS,
    deadLetterMaxAgeMs: config.MEMORY_DEAD_LETTER_MAX_AGE_MS,
  });
  const ingestor = new TurnIngestor({
    messages,
    turns,
    writer,
    workingMemory,
    extractor: new Extractor(extractionModel, {
      attempts: config.MEMORY_EXTRACTION_ATTEMPTS,
      toolResultChars: config.MEMORY_EXTRACTION_TOOL_RESULT_CHARS,
    }),
    vectors,
    settings: {
      defaultCollection: config.MEMORY_DEFAULT_COLLECTION,
      candidateFacts: 30,
      extractionConcurrency: config.MEMORY_INGEST_CONCURRENCY,
      extractionTurnsPerRequest: config.MEMORY_EXTRACTION_TURNS_PER_REQUEST,
    },
    logger,
  });
  const consumer = new IngestConsumer(
    nc,
    ingestor,
    {
      maxDeliveries: config.MEMORY_INGEST_MAX_DELIVERIES,
      ackWaitMs: config.MEMORY_INGEST_ACK_WAIT_MS,
      retryBaseMs: config.MEMORY_INGEST_RETRY_BASE_MS,
      batchSize: config.MEMORY_INGEST_BATCH_SIZE,
      batchWaitMs: config.MEMORY_INGEST_BATCH_WAIT_MS,
      maxAgeMs: config.MEMORY_INGEST_MAX_AGE_MS,
      deadLetterMaxAgeMs: config.MEMORY_DEAD_LETTER_MAX_AGE_MS,
      lagPollMs: config.MEMORY_LAG_POLL_MS,
      ackDelayMs: config.MEMORY_FAULT_ACK_DELAY_MS,
      yieldMs: config.MEMORY_INGEST_YIELD_MS,
    },
    logger,
    foreground,
  );
  await consumer.start();
  started.ingest = consumer;
  closers.push(() => consumer.stop());

  const runEnds = new RunEndListener(nc, workingMemory, logger);
  runEnds.start();
  closers.push(() => runEnds.stop());

  let runner: ToolRunner | undefined;
  if (config.MEMORY_TOOLS_ENABLED) {
    runner = await serveMemoryTools({
      nc,
      recall,
      saver,
      workingMemory,
      logger,
      limits: compileKnowledgeLimits(config),
    });
    const started = runner;
    closers.push(() => started.stop(config.SHUTDOWN_GRACE_MS));
  }

  const sweeper = new SessionSweeper(
    pool,
    extractionModel,
    workingMemory,
    vectors,
    {
      sessionIdleMs: config.MEMORY_SESSION_IDLE_MS,
      sweepIntervalMs: config.MEMORY_SESSION_SWEEP_MS,
      workingMemoryTtlMs: config.MEMORY_WORKING_MEMORY_TTL_MS,
      defaultCollection: config.MEMORY_DEFAULT_COLLECTION,
    },
    logger,
  );
  sweeper.start();
  closers.push(() => sweeper.stop());

  const port = await grpc.start();
  closers.push(() => grpc.stop(config.SHUTDOWN_GRACE_MS));
  return { port, search, ingest: consumer, stop: closeAll };
}
