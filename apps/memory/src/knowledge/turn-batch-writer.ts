import { compositeKey, QUOTA_NAMES } from '@platform/contracts';
import type { TurnFinished } from '@platform/contracts';
import { recordQuotaRefusal } from '@platform/telemetry';
import type pg from 'pg';
import type { Extraction } from '../extraction/extraction-schema.js';
import { holdFactRooms, mayOverflow, type FactRoom } from './fact-quota-room.js';
import type { FactQuota } from './fact-saver.js';
import { conversationLockKey } from './conversation-erasure.js';
import { lockFactSlots, writeFact, type NewFact, type WrittenFact } from './fact-writer.js';
import { storeTurnEpisodes, type TurnEpisode } from './turn-episodes.js';
import { runKey } from './turn-store.js';

/** One extracted turn to store. */
export interface TurnToStore {
  turn: TurnFinished;
  collection: string;
  extraction: Extraction;
}

/** A stored fact or episode with the text its embedding is made from. */
export interface StoredItem {
  tenantId: string;
  kind: 'fact' | 'episode';
  id: string;
  text: string;
}

export interface StoredTurn {
  duplicate: boolean;
  factIds: string[];
  supersededIds: string[];
  episodeId: string | undefined;
  /** New facts the turn stated that were not stored: its tenant held as many current facts as its tier allows. */
  factsOverQuota: number;
}

/** How a written fact changes its tenant's count of current facts. */
const currentDelta = (written: WrittenFact): number => (written.duplicate ? 0 : 1 - written.supersededIds.length);

const snake = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50) || 'general';

/** The text recall searches for a fact (facts.search_text), which is also what gets embedded. */
const factSearchText = (f: Pick<NewFact, 'subject' | 'predicate' | 'object'>): string =>
  `${f.subject} ${f.predicate.replaceAll('_', ' ')} ${f.object}`;

const episodeOf = ({ turn, collection, extraction }: TurnToStore, i: number): TurnEpisode => ({
  i,
  tenantId: turn.tenantId,
  collection,
  conversationId: turn.conversationId,
  runId: turn.runId,
  firstSeq: turn.firstSeq,
  lastSeq: turn.lastSeq,
  summary: extraction.episodeSummary,
  topics: extraction.topics,
});

/**
 * Writes the extracted knowledge of several turns in ONE transaction, each under the
 * (tenant, run) row that makes ingestion idempotent: a turn already stored (a redelivery after a
 * crash between commit and ack) writes nothing and comes back `duplicate`. Rows go in with one
 * multi-row statement per table (claims, entities, episodes), so the vocabulary triggers run once
 * per batch; a turn episode repeating a stored one is counted on it, not stored again (turn-episodes.ts); facts keep their one-by-one supersession, in message order, under advisory locks on
 * their (tenant, collection, subject, predicate) slots taken up front in one sorted order, so two
 * writers never wait on each other in opposite orders. Any error rolls the whole batch back.
 *
 * Learned facts count toward the tenant's facts quota as saved ones do (fact-saver.ts), under the
 * same per-tenant lock, taken before the slot locks: a new fact (neither a duplicate nor replacing
 * one) that would pass the quota is not stored (the rest of the turn is), and is counted as a
 * quota refusal. A turn carries its run's tier; none means the default tier.
 */
export class TurnBatchWriter {
  constructor(
    private readonly pool: pg.Pool,
    private readonly singleValuedPredicates: ReadonlySet<string>,
    private readonly quotaOf: (tier: string) => FactQuota,
  ) {}

  async store(batch: readonly TurnToStore[]): Promise<{ turns: StoredTurn[]; items: StoredItem[] }> {
    const results: StoredTurn[] = batch.map(() => ({
      duplicate: true,
      factIds: [],
      supersededIds: [],
      episodeId: undefined,
      factsOverQuota: 0,
    }));
    const items: StoredItem[] = [];
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const claimed = await this.claim(client, batch);
      // A run that appears twice in the batch is stored once: its later copies are duplicates.
      const mine = batch.flatMap((entry, i) => (claimed.delete(runKey(entry.turn)) ? [{ entry, i }] : []));
      for (const { i } of mine) results[i]!.duplicate = false;
      const facts = mine.flatMap(({ entry, i }) => this.factsOf(entry).map((fact) => ({ fact, i })));
      const tenants = new Map<string, { tier: string; pending: number }>();
      for (const { fact, i } of facts) {
        const seen = tenants.get(fact.tenantId) ?? { tier: batch[i]!.turn.tier ?? '', pending: 0 };
        tenants.set(fact.tenantId, { ...seen, pending: seen.pending + 1 });
      }
      const rooms = await holdFactRooms(client, tenants, this.quotaOf);
      await lockFactSlots(
        client,
        facts.map((f) => f.fact),
      );
      for (const { fact, i } of facts) {
        const room = rooms.get(fact.tenantId)!;
        const written = await this.writeWithinQuota(client, fact, room);
        room.pending -= 1;
        if (!written) {
          results[i]!.factsOverQuota += 1;
          recordQuotaRefusal(QUOTA_NAMES.facts, room.quota.tier);
          continue;
        }
        if (!written.duplicate) {
          results[i]!.factIds.push(written.fact.fact_id);
          items.push({
            tenantId: fact.tenantId,
            kind: 'fact',
            id: written.fact.fact_id,
            text: factSearchText(written.fact),
          });
        }
        results[i]!.supersededIds.push(...written.supersededIds);
      }
      const embedded = new Set<string>();
      for (const episode of await storeTurnEpisodes(
        client,
        mine.flatMap(({ entry, i }) => (entry.extraction.episodeSummary ? [episodeOf(entry, i)] : [])),
      )) {
        results[episode.i]!.episodeId = episode.episodeId;
        // A repeated summary adds no row: only a new one is embedded, once however many turns of the batch said it.
        if (episode.inserted && !embedded.has(episode.episodeId)) {
          embedded.add(episode.episodeId);
          items.push({
            tenantId: batch[episode.i]!.turn.tenantId,
            kind: 'episode',
            id: episode.episodeId,
            text: episode.summary,
          });
        }
      }
      // Last: entity rows are shared by many turns, so their locks are held as briefly as possible.
      await this.upsertEntities(
        client,
        mine.map((m) => m.entry),
      );
      const counted = mine.filter(({ i }) => results[i]!.factIds.length > 0);
      if (counted.length > 0) {
        await client.query(
          `UPDATE ingested_runs r SET facts_stored = c.n FROM unnest($1::text[], $2::text[], $3::int[]) AS c(tenant_id, run_id, n)
           WHERE r.tenant_id = c.tenant_id AND r.run_id = c.run_id`,
          [
            counted.map((c) => c.entry.turn.tenantId),
            counted.map((c) => c.entry.turn.runId),
            counted.map((c) => results[c.i]!.factIds.length),
          ],
        );
      }
      await client.query('COMMIT');
      return { turns: results, items };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Writes one fact unless it would pass its tenant's quota. Only while the tenant's remaining
   * facts could pass it is each write held in a savepoint, to be undone when it added a current fact
   * the quota has no room for; a tenant far from its limit pays nothing extra.
   */
  private async writeWithinQuota(
    client: pg.PoolClient,
    fact: NewFact,
    room: FactRoom,
  ): Promise<WrittenFact | undefined> {
    if (!mayOverflow(room)) {
      const written = await writeFact(client, fact, { locked: true });
      room.current += currentDelta(written);
      return written;
    }
    await client.query('SAVEPOINT fact_within_quota');
    const written = await writeFact(client, fact, { locked: true });
    const delta = currentDelta(written);
    if (delta > 0 && room.current >= room.quota.maxFacts) {
      await client.query('ROLLBACK TO SAVEPOINT fact_within_quota');
      return undefined;
    }
    await client.query('RELEASE SAVEPOINT fact_within_quota');
    room.current += delta;
    return written;
  }

  /** Inserts the (tenant, run) rows, in key order; returns the keys this transaction claimed (the others were stored before). */
  private async claim(client: pg.PoolClient, batch: readonly TurnToStore[]): Promise<Set<string>> {
    const turns = [...new Map(batch.map((b) => [runKey(b.turn), b.turn])).values()].sort((a, b) =>
      runKey(a) < runKey(b) ? -1 : 1,
    );
    // A conversation being deleted is waited for; one deleted (and not used again since) is skipped.
    await client.query(
      'SELECT pg_advisory_xact_lock_shared(k) FROM (SELECT DISTINCT hashtextextended(s, 0) AS k FROM unnest($1::text[]) AS s ORDER BY 1) AS ordered',
      [turns.map((t) => conversationLockKey(t.tenantId, t.conversationId))],
    );
    const { rows } = await client.query<{ tenant_id: string; run_id: string }>(
      `INSERT INTO ingested_runs (tenant_id, run_id, conversation_id, facts_stored)
       SELECT t, r, c, 0 FROM unnest($1::text[], $2::text[], $3::text[]) AS x(t, r, c)
       WHERE NOT EXISTS (SELECT 1 FROM deleted_conversations d WHERE d.tenant_id = x.t AND d.conversation_id = x.c
                         AND NOT EXISTS (SELECT 1 FROM conversations v WHERE v.tenant_id = x.t AND v.conversation_id = x.c))
       ON CONFLICT DO NOTHING RETURNING tenant_id, run_id`,
      [turns.map((t) => t.tenantId), turns.map((t) => t.runId), turns.map((t) => t.conversationId)],
    );
    return new Set(rows.map((r) => runKey({ tenantId: r.tenant_id, runId: r.run_id })));
  }

  /**
   * All entities of the batch in one upsert. Several mentions of one entity (same tenant,
   * collection and name ignoring case) are merged first as one-by-one upserts would leave it: the
   * first spelling, the last type, facets merged in order, "conversation" once any mention was.
   */
  private async upsertEntities(client: pg.PoolClient, entries: readonly TurnToStore[]): Promise<void> {
    const merged = new Map<
      string,
      {
        tenantId: string;
        collection: string;
        name: string;
        type: string;
        facets: Record<string, unknown>;
        origin: 'conversation' | 'tool';
      }
    >();
    for (const { turn, collection, extraction } of entries) {
      for (const e of extraction.entities) {
        const key = compositeKey(turn.tenantId, collection, e.name.toLowerCase());
        const origin = e.fromTool ? 'tool' : 'conversation';
        const seen = merged.get(key);
        if (!seen)
          merged.set(key, {
            tenantId: turn.tenantId,
            collection,
            name: e.name,
            type: e.type,
            facets: { ...e.facets },
            origin,
          });
        else
          merged.set(key, {
            ...seen,
            type: e.type,
            facets: { ...seen.facets, ...e.facets },
            origin: seen.origin === 'conversation' ? 'conversation' : origin,
          });
      }
    }
    if (merged.size === 0) return;
    const rows = [...merged].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, row]) => row);
    await client.query(
      `INSERT INTO entities (tenant_id, collection, name, entity_type, facets, origin)
       SELECT t, c, n, ty, f::jsonb, o FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(t, c, n, ty, f, o)
       ON CONFLICT (tenant_id, collection, lower(name)) DO UPDATE
         SET facets = entities.facets || EXCLUDED.facets, entity_type = EXCLUDED.entity_type, updated_at = now(),
             origin = CASE WHEN entities.origin = 'conversation' THEN 'conversation' ELSE EXCLUDED.origin END`,
      [
        rows.map((r) => r.tenantId),
        rows.map((r) => r.collection),
        rows.map((r) => r.name),
        rows.map((r) => r.type),
        rows.map((r) => JSON.stringify(r.facets)),
        rows.map((r) => r.origin),
      ],
    );
  }

  /** A turn's facts and preferences as facts to write, in the order its messages stated them. */
  private factsOf({ turn, collection, extraction }: TurnToStore): NewFact[] {
    const base = {
      tenantId: turn.tenantId,
      collection,
      origin: 'extracted' as const,
      conversationId: turn.conversationId,
      runId: turn.runId,
    };
    return [
      ...extraction.facts.map((f) => ({
        ...base,
        subject: f.subject,
        predicate: f.predicate,
        object: f.object,
        kind: 'fact' as const,
        confidence: f.confidence,
        messageSeq: f.sourceSeq,
        singleValued: f.singleValued || this.singleValuedPredicates.has(f.predicate),
        supersedes: f.supersedes,
      })),
      // A preference holds one value per topic: a new one replaces the old.
      ...extraction.preferences.map((p) => ({
        ...base,
        subject: p.subject,
        predicate: `prefers_${snake(p.topic)}`,
        object: p.value,
        kind: 'preference' as const,
        confidence: p.confidence,
        messageSeq: p.sourceSeq,
        singleValued: true,
        supersedes: p.supersedes,
      })),
    ].sort((a, b) => (a.messageSeq ?? 0) - (b.messageSeq ?? 0));
  }
}
