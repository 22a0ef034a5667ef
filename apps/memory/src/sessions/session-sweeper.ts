import type { OpenAIStructuredOutput } from '@platform/llm';
import type { Logger } from '@platform/service-kit';
import type pg from 'pg';
import { SessionSummary } from '../extraction/extraction-schema.js';
import type { WorkingMemoryStore } from '../knowledge/working-memory-store.js';
import type { VectorIndex } from '../recall/vector-index.js';

/** How the upkeep runs (compiled from the environment in server.ts). */
export interface SessionSweeperOptions {
  /** A conversation idle this long gets its session episode; 0 writes none. */
  sessionIdleMs: number;
  /** Time between two sweeps. */
  sweepIntervalMs: number;
  /** Working memory of runs that never reported their end is dropped after this long. */
  workingMemoryTtlMs: number;
  /** The collection of a session episode whose conversation stored nothing yet. */
  defaultCollection: string;
}

const SYSTEM_PROMPT = `Summarise a conversation session for long-term memory in a few sentences: who the user is, what they wanted, what was decided or done, and open threads. Keep names, numbers and dates. Return JSON {"summary": string, "topics": [short labels]}.`;
const MAX_SESSION_MESSAGES = 200;
const SESSIONS_PER_SWEEP = 10;
const BACKFILL_PER_SWEEP = 200;

/**
 * Periodic upkeep on every replica: session episodes for conversations idle past
 * `sessionIdleMs` (each written once: a session advisory lock per conversation keeps two
 * replicas from summarising it together, and a unique index keeps the episode single even so),
 * working memory of runs that never reported their end, and embeddings the ingestion could not make.
 */
export class SessionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly model: OpenAIStructuredOutput,
    private readonly workingMemory: WorkingMemoryStore,
    private readonly vectors: VectorIndex | undefined,
    private readonly settings: SessionSweeperOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((err: unknown) =>
          this.logger.warn({ err: (err as Error).message }, 'memory upkeep failed; next sweep retries'),
        )
        .finally(() => (this.running = undefined));
    }, this.settings.sweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async sweep(): Promise<void> {
    await this.workingMemory.expire(this.settings.workingMemoryTtlMs);
    if (this.vectors)
      await this.vectors
        .backfill(BACKFILL_PER_SWEEP)
        .catch((err: unknown) => this.logger.debug({ err: (err as Error).message }, 'embedding backfill failed'));
    if (this.settings.sessionIdleMs > 0) await this.summariseIdleSessions();
  }

  /** Summarises idle conversations not yet covered up to their last message; returns how many episodes were written. */
  async summariseIdleSessions(): Promise<number> {
    const { rows } = await this.pool.query<{
      tenant_id: string;
      conversation_id: string;
      last_seq: string;
      from_seq: string;
    }>(
      `SELECT c.tenant_id, c.conversation_id, c.next_seq - 1 AS last_seq,
              coalesce((SELECT max(e.last_seq) FROM episodes e WHERE e.tenant_id = c.tenant_id AND e.conversation_id = c.conversation_id AND e.kind = 'session'), 0) AS from_seq
       FROM conversations c
       WHERE c.updated_at < now() - make_interval(secs => $1::double precision / 1000) AND c.next_seq > 1
         AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.tenant_id = c.tenant_id AND e.conversation_id = c.conversation_id AND e.kind = 'session' AND e.last_seq >= c.next_seq - 1)
       ORDER BY c.updated_at LIMIT $2`,
      [this.settings.sessionIdleMs, SESSIONS_PER_SWEEP],
    );
    let written = 0;
    for (const row of rows) {
      if (await this.summarise(row.tenant_id, row.conversation_id, Number(row.from_seq), Number(row.last_seq)))
        written += 1;
    }
    return written;
  }

  private async summarise(
    tenantId: string,
    conversationId: string,
    fromSeq: number,
    lastSeq: number,
  ): Promise<boolean> {
    const client = await this.pool.connect();
    const key = `session:${tenantId}\u001f${conversationId}`;
    try {
      const { rows: locked } = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
        [key],
      );
      if (!locked[0]!.ok) return false;
      try {
        const done = await client.query(
          `SELECT 1 FROM episodes WHERE tenant_id = $1 AND conversation_id = $2 AND kind = 'session' AND last_seq >= $3`,
          [tenantId, conversationId, lastSeq],
        );
        if (done.rowCount) return false;
        const { rows: messages } = await client.query<{ seq: string; role: string; message_json: string }>(
          `SELECT seq, role, message_json FROM messages WHERE tenant_id = $1 AND conversation_id = $2 AND seq > $3 AND seq <= $4 AND role IN ('user', 'assistant')
           ORDER BY seq DESC LIMIT $5`,
          [tenantId, conversationId, fromSeq, lastSeq, MAX_SESSION_MESSAGES],
        );
        const transcript = messages
          .reverse()
          .map((m) => {
            const content = (JSON.parse(m.message_json) as { content?: unknown }).content;
            return typeof content === 'string' && content ? `${m.role}: ${content.slice(0, 2_000)}` : '';
          })
          .filter(Boolean)
          .join('\n');
        if (!transcript) return false;
        const summary = await this.model.complete({
          schemaName: 'session_summary',
          schema: SessionSummary,
          system: SYSTEM_PROMPT,
          user: transcript,
        });
        // The conversation's collection: that of the episode its latest ingested turn contributed to
        // (a repeated turn episode is stored once, under the conversation that said it first), else
        // of its latest session episode.
        const { rows: collection } = await client.query<{ collection: string }>(
          `SELECT collection FROM (
             SELECT e.collection, r.ingested_at AS at FROM ingested_runs r
             JOIN episodes e ON e.tenant_id = r.tenant_id AND e.episode_id = r.episode_id
             WHERE r.tenant_id = $1 AND r.conversation_id = $2
             UNION ALL
             SELECT collection, created_at FROM episodes WHERE tenant_id = $1 AND conversation_id = $2) AS seen
           ORDER BY at DESC LIMIT 1`,
          [tenantId, conversationId],
        );
        const inserted = await client.query<{ episode_id: string }>(
          `INSERT INTO episodes (tenant_id, collection, conversation_id, kind, summary, topics, first_seq, last_seq)
           VALUES ($1, $2, $3, 'session', $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING episode_id`,
          [
            tenantId,
            collection[0]?.collection ?? this.settings.defaultCollection,
            conversationId,
            summary.summary,
            summary.topics,
            fromSeq + 1,
            lastSeq,
          ],
        );
        const episodeId = inserted.rows[0]?.episode_id;
        if (episodeId && this.vectors) await this.vectors.indexNew(tenantId, [], [episodeId]).catch(() => undefined);
        if (episodeId)
          this.logger.info({ tenantId, conversationId, lastSeq }, 'idle session summarised into an episode');
        return episodeId !== undefined;
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(() => undefined);
      }
    } finally {
      client.release();
    }
  }
}
