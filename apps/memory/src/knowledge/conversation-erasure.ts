import { detachForks } from './fork-detachment.js';
import { inTransaction } from '@platform/service-kit';
import type pg from 'pg';
import type { VectorIndex } from '../recall/vector-index.js';
import { writeAudit } from './audit-log.js';
import { collectionPrefixSql } from './collections.js';

export interface ConversationErased {
  messages: number;
  factsDeleted: number;
  factsUnlinked: number;
  episodesDeleted: number;
  episodesUnlinked: number;
  workingMemory: number;
  auditId: string;
}

export interface CollectionsErased {
  facts: number;
  entities: number;
  episodes: number;
  auditId: string;
}

/** The advisory lock a conversation's deletion takes exclusively and its ingestion shared. */
export const conversationLockKey = (tenantId: string, conversationId: string): string =>
  `memory-conversation\u001f${tenantId}\u001f${conversationId}`;

interface Who {
  tenantId: string;
  actor: string;
  reason: string;
}

/**
 * Hard-deletes what memory keeps of one conversation, or of whole collections (docs/conversations.md,
 * "Deleting a conversation and erasing a user"). Knowledge learned from several conversations keeps
 * the others' provenance: a fact stays while another conversation taught it (`fact_sources`,
 * migrations/0006), a repeated turn episode while another conversation's run said it
 * (`ingested_runs.episode_id`). Every statement is scoped by tenant; one transaction per call, so
 * a crash deletes all of it or nothing, and a repeat finds nothing left.
 */
export class ConversationErasure {
  constructor(
    private readonly pool: pg.Pool,
    private readonly vectors: () => VectorIndex | undefined,
  ) {}

  async deleteConversation(who: Who, conversationId: string): Promise<ConversationErased> {
    const t = who.tenantId;
    return inTransaction(this.pool, async (client) => {
      // Serialises with the ingestion of the conversation's turns (they take this lock shared, see
      // turn-batch-writer.ts), with its appends (they lock its row) and with a second deletion.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        conversationLockKey(t, conversationId),
      ]);
      await client.query('SELECT 1 FROM conversations WHERE tenant_id = $1 AND conversation_id = $2 FOR UPDATE', [
        t,
        conversationId,
      ]);
      const runs = await client.query<{ run_id: string }>(
        `SELECT run_id FROM messages WHERE tenant_id = $1 AND conversation_id = $2 AND run_id IS NOT NULL
         UNION SELECT run_id FROM ingested_runs WHERE tenant_id = $1 AND conversation_id = $2`,
        [t, conversationId],
      );
      const runIds = runs.rows.map((r) => r.run_id);
      const facts = await this.eraseFacts(client, t, conversationId);
      const episodes = await this.eraseEpisodes(client, t, conversationId);
      await client.query('DELETE FROM ingested_runs WHERE tenant_id = $1 AND conversation_id = $2', [
        t,
        conversationId,
      ]);
      const working = await client.query(
        'DELETE FROM working_memory WHERE tenant_id = $1 AND (conversation_id = $2 OR run_id = ANY($3::text[]))',
        [t, conversationId, runIds],
      );
      // Its forks keep the history they read from it, as their own copy.
      await detachForks(client, t, conversationId);
      const messages = await client.query('DELETE FROM messages WHERE tenant_id = $1 AND conversation_id = $2', [
        t,
        conversationId,
      ]);
      await client.query('DELETE FROM appends WHERE tenant_id = $1 AND conversation_id = $2', [t, conversationId]);
      await client.query('DELETE FROM conversations WHERE tenant_id = $1 AND conversation_id = $2', [
        t,
        conversationId,
      ]);
      // A turn of it still in the ingestion stream is skipped (migrations/0006 `deleted_conversations`).
      await client.query(
        `INSERT INTO deleted_conversations (tenant_id, conversation_id) VALUES ($1, $2)
         ON CONFLICT (tenant_id, conversation_id) DO UPDATE SET deleted_at = now()`,
        [t, conversationId],
      );
      const counts = {
        messages: messages.rowCount ?? 0,
        factsDeleted: facts.deleted,
        factsUnlinked: facts.unlinked,
        episodesDeleted: episodes.deleted,
        episodesUnlinked: episodes.unlinked,
        workingMemory: working.rowCount ?? 0,
      };
      const auditId = await writeAudit(
        client,
        { ...who, action: 'delete_conversation', target: `conversation:${conversationId}` },
        counts,
      );
      return { ...counts, auditId };
    });
  }

  /** Every fact, entity and episode of `prefix` and the collections below it. */
  async deleteCollections(who: Who, prefix: string): Promise<CollectionsErased> {
    const t = who.tenantId;
    return inTransaction(this.pool, async (client) => {
      const facts = await client.query<{ fact_id: string }>(
        `DELETE FROM facts WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')} RETURNING fact_id`,
        [t, prefix],
      );
      const factIds = facts.rows.map((r) => r.fact_id);
      await this.afterFactsDeleted(client, t, factIds);
      const entities = await client.query(
        `DELETE FROM entities WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')}`,
        [t, prefix],
      );
      const episodes = await client.query<{ episode_id: string }>(
        `DELETE FROM episodes WHERE tenant_id = $1 AND ${collectionPrefixSql('$2')} RETURNING episode_id`,
        [t, prefix],
      );
      const episodeIds = episodes.rows.map((r) => r.episode_id);
      await client.query(
        'UPDATE ingested_runs SET episode_id = NULL WHERE tenant_id = $1 AND episode_id = ANY($2::uuid[])',
        [t, episodeIds],
      );
      await this.vectors()?.forget(client, t, episodeIds);
      const counts = { facts: factIds.length, entities: entities.rowCount ?? 0, episodes: episodeIds.length };
      const auditId = await writeAudit(
        client,
        { ...who, action: 'delete_collections', target: `collection:${prefix}` },
        counts,
      );
      return { ...counts, auditId };
    });
  }

  /** Facts only this conversation taught go; the others keep another conversation as their provenance. */
  private async eraseFacts(
    client: pg.PoolClient,
    t: string,
    conversationId: string,
  ): Promise<{ deleted: number; unlinked: number }> {
    const taught = await client.query<{ fact_id: string; other_conversation: string | null; other_run: string | null }>(
      `SELECT f.fact_id, o.conversation_id AS other_conversation, o.run_id AS other_run
       FROM facts f
       LEFT JOIN LATERAL (
         SELECT s.conversation_id, s.run_id FROM fact_sources s
         WHERE s.tenant_id = f.tenant_id AND s.fact_id = f.fact_id AND s.conversation_id <> $2
         ORDER BY s.added_at LIMIT 1) o ON true
       WHERE f.tenant_id = $1 AND (f.conversation_id = $2 OR f.fact_id IN (
         SELECT fact_id FROM fact_sources WHERE tenant_id = $1 AND conversation_id = $2))
       FOR UPDATE OF f`,
      [t, conversationId],
    );
    const only = taught.rows.filter((r) => r.other_conversation === null).map((r) => r.fact_id);
    const shared = taught.rows.filter((r) => r.other_conversation !== null);
    for (const row of shared)
      await client.query(
        `UPDATE facts SET conversation_id = $3, run_id = $4, message_seq = NULL
         WHERE tenant_id = $1 AND fact_id = $2 AND conversation_id = $5`,
        [t, row.fact_id, row.other_conversation, row.other_run, conversationId],
      );
    const subjects = await client.query<{ collection: string; name: string }>(
      `DELETE FROM facts WHERE tenant_id = $1 AND fact_id = ANY($2::uuid[])
       RETURNING collection, lower(subject) AS name`,
      [t, only],
    );
    await this.afterFactsDeleted(client, t, only);
    // An entity named only by the deleted facts goes too (entities carry no provenance of their own).
    const names = [...new Set(subjects.rows.map((r) => `${r.collection}\u001f${r.name}`))];
    if (names.length)
      await client.query(
        `DELETE FROM entities e USING unnest($2::text[]) AS n(key)
         WHERE e.tenant_id = $1 AND e.collection || chr(31) || lower(e.name) = n.key
           AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.tenant_id = $1 AND f.collection = e.collection
                           AND (lower(f.subject) = lower(e.name) OR lower(f.object) = lower(e.name)))`,
        [t, names],
      );
    await client.query('DELETE FROM fact_sources WHERE tenant_id = $1 AND conversation_id = $2', [t, conversationId]);
    return { deleted: only.length, unlinked: shared.length };
  }

  /** Episodes only this conversation said go; a repeated one said elsewhere too keeps those turns. */
  private async eraseEpisodes(
    client: pg.PoolClient,
    t: string,
    conversationId: string,
  ): Promise<{ deleted: number; unlinked: number }> {
    const said = await client.query<{
      episode_id: string;
      own_conversation: boolean;
      mine: number;
      other_conversation: string | null;
      other_run: string | null;
    }>(
      `SELECT e.episode_id, e.conversation_id = $2 AS own_conversation,
              (SELECT count(*)::int FROM ingested_runs r WHERE r.tenant_id = $1 AND r.episode_id = e.episode_id AND r.conversation_id = $2) AS mine,
              o.conversation_id AS other_conversation, o.run_id AS other_run
       FROM episodes e
       LEFT JOIN LATERAL (
         SELECT r.conversation_id, r.run_id FROM ingested_runs r
         WHERE r.tenant_id = e.tenant_id AND r.episode_id = e.episode_id AND r.conversation_id <> $2
         ORDER BY r.ingested_at LIMIT 1) o ON true
       WHERE e.tenant_id = $1 AND (e.conversation_id = $2 OR e.episode_id IN (
         SELECT episode_id FROM ingested_runs WHERE tenant_id = $1 AND conversation_id = $2 AND episode_id IS NOT NULL))
       FOR UPDATE OF e`,
      [t, conversationId],
    );
    const only = said.rows.filter((r) => r.other_conversation === null).map((r) => r.episode_id);
    const shared = said.rows.filter((r) => r.other_conversation !== null);
    for (const row of shared)
      await client.query(
        `UPDATE episodes SET occurrences = greatest(1, occurrences - $3),
           conversation_id = CASE WHEN $4 THEN $5 ELSE conversation_id END,
           run_id = CASE WHEN $4 THEN $6 ELSE run_id END
         WHERE tenant_id = $1 AND episode_id = $2`,
        [t, row.episode_id, row.mine, row.own_conversation, row.other_conversation, row.other_run],
      );
    await client.query('DELETE FROM episodes WHERE tenant_id = $1 AND episode_id = ANY($2::uuid[])', [t, only]);
    await this.vectors()?.forget(client, t, only);
    return { deleted: only.length, unlinked: shared.length };
  }

  private async afterFactsDeleted(client: pg.PoolClient, t: string, factIds: readonly string[]): Promise<void> {
    if (factIds.length === 0) return;
    await client.query(
      'UPDATE facts SET superseded_by = NULL WHERE tenant_id = $1 AND superseded_by = ANY($2::uuid[])',
      [t, factIds],
    );
    await client.query('DELETE FROM fact_sources WHERE tenant_id = $1 AND fact_id = ANY($2::uuid[])', [t, factIds]);
    await this.vectors()?.forget(client, t, factIds);
  }
}
