import { jetstreamManager } from '@nats-io/jetstream';
import { compositeKey, RUN_EVENTS_STREAM, runEventsSubject, SUBJECT_SAFE_RUN_ID } from '@platform/contracts';
import type { agentPoolV1, memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { Redis } from 'ioredis';
import type { NatsConnection } from '@nats-io/nats-core';
import type pg from 'pg';
import type { RunCancellation } from '../run-cancellation.js';
import { deleteConversationRows } from './conversation-tables.js';
import type { DeletionRow } from './deletion-store.js';

export interface DeletionStepDependencies {
  pool: pg.Pool;
  redis: Redis;
  nc: NatsConnection;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  agentPool: PromiseClient<agentPoolV1.AgentPoolServiceClient>;
  cancellation: Pick<RunCancellation, 'cancel'>;
  /** The prefix of the conversation lease keys (ordering/conversation-lease.ts). */
  leaseKeyPrefix?: string;
}

/** A step that cannot finish yet (a run still stopping): the job is tried again later, not failed. */
export class NotYetError extends Error {}

/** The runs of a conversation and of the delegations below them (child runs have conversations of their own). */
interface Scope {
  runIds: string[];
  conversationIds: string[];
}

export type DeletionStep = (job: DeletionRow, scope: Scope) => Promise<Record<string, number>>;

/** Glob metacharacters of Redis MATCH, escaped so a conversation id matches only itself. */
const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * The steps of a conversation's deletion, in order (docs/conversations.md). Each is idempotent:
 * after a crash the job repeats the step it was in, and a step finds nothing left of what it did.
 * Runs are cancelled first (the CancelRun path), so nothing writes to the conversation while it
 * goes; the orchestrator's own rows go last, because the earlier steps find the runs through them.
 */
export class DeletionSteps {
  constructor(private readonly deps: DeletionStepDependencies) {}

  readonly steps: ReadonlyArray<[name: string, step: DeletionStep]> = [
    ['cancel_runs', (job, scope) => this.cancelRuns(job, scope)],
    ['agent_pool', (job, scope) => this.agentPool(job, scope)],
    ['memory', (job, scope) => this.memory(job, scope)],
    ['run_events', (_job, scope) => this.runEvents(scope)],
    ['redis', (job, scope) => this.redisKeys(job, scope)],
    ['orchestrator', (job, scope) => deleteConversationRows(this.deps.pool, job.tenant_id, scope.conversationIds)],
  ];

  async scope(job: DeletionRow): Promise<Scope> {
    const { rows } = await this.deps.pool.query<{ run_id: string; conversation_id: string }>(
      `WITH RECURSIVE tree AS (
         SELECT run_id, conversation_id FROM runs WHERE tenant_id = $1 AND conversation_id = $2
         UNION SELECT r.run_id, r.conversation_id FROM runs r JOIN tree t ON r.tenant_id = $1 AND r.parent_run_id = t.run_id)
       SELECT run_id, conversation_id FROM tree`,
      [job.tenant_id, job.conversation_id],
    );
    return {
      runIds: rows.map((r) => r.run_id),
      conversationIds: [...new Set([job.conversation_id, ...rows.map((r) => r.conversation_id)])],
    };
  }

  private async cancelRuns(job: DeletionRow, scope: Scope): Promise<Record<string, number>> {
    const live = async (): Promise<Array<{ run_id: string; status: string }>> =>
      (
        await this.deps.pool.query<{ run_id: string; status: string }>(
          `SELECT run_id, status FROM runs WHERE tenant_id = $1 AND run_id = ANY($2::text[]) AND status IN ('queued', 'running')`,
          [job.tenant_id, scope.runIds],
        )
      ).rows;
    const before = await live();
    for (const run of before) await this.deps.cancellation.cancel(job.tenant_id, run.run_id);
    const still = await live();
    if (still.length > 0) throw new NotYetError(`${still.length} run(s) of the conversation are still stopping`);
    return { runsCancelled: before.length };
  }

  private async agentPool(job: DeletionRow, scope: Scope): Promise<Record<string, number>> {
    let cancelled = 0;
    let deleted = 0;
    for (const conversationId of scope.conversationIds) {
      const done = await this.deps.agentPool.deleteConversation({ tenantId: job.tenant_id, conversationId });
      cancelled += done.entriesCancelled;
      deleted += done.entriesDeleted;
    }
    return { poolEntriesCancelled: cancelled, poolEntriesDeleted: deleted };
  }

  private async memory(job: DeletionRow, scope: Scope): Promise<Record<string, number>> {
    const sum: Record<string, number> = {
      messages: 0,
      factsDeleted: 0,
      factsUnlinked: 0,
      episodesDeleted: 0,
      workingMemory: 0,
    };
    for (const conversationId of scope.conversationIds) {
      const done = await this.deps.memory.deleteConversation({
        tenantId: job.tenant_id,
        conversationId,
        actor: job.actor,
        reason: `conversation deletion ${job.deletion_id} (${job.reason})`,
      });
      sum['messages']! += done.messagesDeleted;
      sum['factsDeleted']! += done.factsDeleted;
      sum['factsUnlinked']! += done.factsUnlinked;
      sum['episodesDeleted']! += done.episodesDeleted;
      sum['workingMemory']! += done.workingMemoryDeleted;
    }
    return sum;
  }

  /** Every event of every run, purged by the run's own subject (nothing else shares it). */
  private async runEvents(scope: Scope): Promise<Record<string, number>> {
    const jsm = await jetstreamManager(this.deps.nc);
    let purged = 0;
    for (const runId of scope.runIds) {
      if (!SUBJECT_SAFE_RUN_ID.test(runId)) continue; // such a run never had an event subject
      const done = await jsm.streams.purge(RUN_EVENTS_STREAM, { filter: runEventsSubject(runId) });
      purged += done.purged;
    }
    return { runEvents: purged };
  }

  /** The conversation's lease and fencing counter, and any other key that names it (found by SCAN). */
  private async redisKeys(job: DeletionRow, scope: Scope): Promise<Record<string, number>> {
    const prefix = this.deps.leaseKeyPrefix ?? 'platform:conversation';
    let deleted = 0;
    for (const conversationId of scope.conversationIds) {
      const key = compositeKey(job.tenant_id, conversationId);
      const keys = new Set([`${prefix}:{${key}}:lease`, `${prefix}:{${key}}:fence`]);
      let cursor = '0';
      do {
        const [next, found] = await this.deps.redis.scan(cursor, 'MATCH', `*${globEscape(key)}*`, 'COUNT', 500);
        cursor = next;
        for (const k of found) keys.add(k);
      } while (cursor !== '0');
      deleted += await this.deps.redis.del(...keys);
    }
    return { redisKeys: deleted };
  }
}
