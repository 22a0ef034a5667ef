import type { agentPoolV1, erasureV1, memoryV1 } from '@platform/proto';
import { CollectionName } from '@platform/contracts';
import type { Logger, PromiseClient } from '@platform/service-kit';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { OrchestratorConfig } from '../config.js';
import type { RunCancellation } from '../run-cancellation.js';
import { DeletionSteps } from './deletion-steps.js';
import { DeletionStore } from './deletion-store.js';
import { DeletionWorker } from './deletion-worker.js';
import { erasureServiceImplementation } from './erasure-service.js';
import { RetentionSweep } from './retention-sweep.js';

export interface Erasure {
  store: DeletionStore;
  service: erasureV1.ErasureServiceServer;
  start(): void;
  stop(): Promise<void>;
}

/** Conversation deletion, end-user erasure and retention, wired for one replica (docs/conversations.md). */
export function openErasure(
  config: OrchestratorConfig,
  deps: {
    pool: pg.Pool;
    redis: Redis;
    nc: NatsConnection;
    memory: PromiseClient<memoryV1.MemoryServiceClient>;
    agentPool: PromiseClient<agentPoolV1.AgentPoolServiceClient>;
    cancellation: Pick<RunCancellation, 'cancel'>;
    owner: string;
    logger: Logger;
  },
): Erasure {
  const logger = deps.logger.child({ component: 'erasure' });
  const store = new DeletionStore(deps.pool);
  const worker = new DeletionWorker({
    store,
    steps: new DeletionSteps(deps),
    owner: deps.owner,
    leaseMs: config.ERASURE_LEASE_MS,
    pollIntervalMs: config.ERASURE_POLL_MS,
    retryMs: config.ERASURE_RETRY_MS,
    logger,
  });
  const sweep = new RetentionSweep({
    pool: deps.pool,
    store,
    tiers: config.TENANT_TIERS,
    defaultTier: config.DEFAULT_TIER,
    intervalMs: config.RETENTION_SWEEP_MS,
    batch: 100,
    recorded: () => worker.kick(),
    logger,
  });
  const service = erasureServiceImplementation({
    store,
    recorded: () => worker.kick(),
    pool: deps.pool,
    deleteUserCollections: async (tenantId, subject, actor) => {
      // An end user's own collections are `user:<sub>` (docs/memory.md); a sub that cannot name one has none.
      const collection = CollectionName.safeParse(`user:${subject}`);
      if (!collection.success) return { facts: 0, episodes: 0 };
      const done = await deps.memory.deleteCollections({
        tenantId,
        collectionPrefix: collection.data,
        actor,
        reason: 'end user erasure',
      });
      return { facts: done.factsDeleted, episodes: done.episodesDeleted };
    },
    logger,
  });
  return {
    store,
    service,
    start() {
      worker.start();
      sweep.start();
    },
    async stop() {
      sweep.stop();
      await worker.stop();
    },
  };
}
