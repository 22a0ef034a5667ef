import { ChatMessage, type IngestedMessage, type TurnFinished, compositeKey } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { Extractor } from '../extraction/extractor.js';
import type { MessageStore } from '../message-store.js';
import type { StoredItem, TurnBatchWriter, TurnToStore } from '../knowledge/turn-batch-writer.js';
import { runKey, type TurnStore } from '../knowledge/turn-store.js';
import type { WorkingMemoryStore } from '../knowledge/working-memory-store.js';
import type { VectorIndex } from '../recall/vector-index.js';
import { mapConcurrently } from './map-concurrently.js';

export interface TurnIngestorSettings {
  defaultCollection: string;
  /** Current facts shown to the extractor as supersession candidates. */
  candidateFacts: number;
  /** Model calls (extractions) one batch runs at once. */
  extractionConcurrency: number;
  /** Turns of one tenant and collection that share one extraction call (1 = a call per turn). */
  extractionTurnsPerRequest: number;
}

type IngestOutcome =
  { status: 'stored'; facts: number; superseded: number } | { status: 'duplicate' } | { status: 'empty' };
/** What became of one turn of a batch: an outcome once its transaction committed, or the error that stopped it. */
export type IngestResult = { ok: true; outcome: IngestOutcome } | { ok: false; error: unknown };

/** A turn after the reads and the model call: either finished (duplicate, empty, failed) or ready to store. */
type Prepared = { result: IngestResult } | { store: TurnToStore };

/**
 * Finished turns into long-term knowledge, a batch at a time: the runs' working memory is dropped
 * (the runs are over), turns already stored are recognised, each turn's messages are read (from
 * the message, or from the history this service holds), the extractor is given the current facts
 * each turn may contradict, and all the batch's knowledge is written in one transaction keyed by
 * (tenant, run). A turn that fails (its model call, its messages) fails alone; if the batch's
 * reads or its transaction fail, its turns are retried one by one, so one bad turn never holds
 * back the others. Embeddings (one request per batch) follow the commit and never fail a turn:
 * what could not be embedded now is embedded by the index's backfill.
 */
export class TurnIngestor {
  constructor(
    private readonly deps: {
      messages: MessageStore;
      turns: TurnStore;
      writer: TurnBatchWriter;
      workingMemory: WorkingMemoryStore;
      extractor: Extractor;
      vectors: VectorIndex | undefined;
      settings: TurnIngestorSettings;
      logger: Logger;
    },
  ) {}

  /** Ingests several turns; the results are in the turns' order and final (committed) when returned. */
  async ingestBatch(turns: readonly TurnFinished[], signal?: AbortSignal): Promise<IngestResult[]> {
    let prepared: Prepared[];
    try {
      prepared = await this.prepare(turns, signal);
    } catch (error) {
      if (turns.length === 1) return [{ ok: false, error }];
      this.deps.logger.warn(
        { turns: turns.length, err: (error as Error).message },
        'could not read for a batch of turns; reading them one by one',
      );
      prepared = [];
      for (const turn of turns)
        prepared.push(
          await this.prepare([turn], signal).then(
            (p) => p[0]!,
            (err: unknown) => ({ result: { ok: false, error: err } as IngestResult }),
          ),
        );
    }
    const results: (IngestResult | undefined)[] = prepared.map((p) => ('result' in p ? p.result : undefined));
    const pending = prepared.flatMap((p, i) => ('store' in p ? [{ i, entry: p.store }] : []));
    const items = await this.store(pending, results);
    if (this.deps.vectors && items.length > 0) {
      await this.deps.vectors
        .indexItems(items)
        .catch((err: unknown) =>
          this.deps.logger.warn(
            { items: items.length, err: (err as Error).message },
            'could not embed ingested turns now; the backfill will',
          ),
        );
    }
    return results.map((r) => r ?? { ok: false, error: new Error('turn was neither stored nor failed') });
  }

  /** Writes the batch in one transaction; if that fails, each turn in its own. Fills `results`; returns what to embed. */
  private async store(
    pending: readonly { i: number; entry: TurnToStore }[],
    results: (IngestResult | undefined)[],
  ): Promise<StoredItem[]> {
    if (pending.length === 0) return [];
    const { writer, logger } = this.deps;
    const groups = await writer.store(pending.map((p) => p.entry)).then(
      (stored) => [{ members: pending, stored }],
      async (error: unknown) => {
        if (pending.length === 1) {
          results[pending[0]!.i] = { ok: false, error };
          return [];
        }
        logger.warn(
          { turns: pending.length, err: (error as Error).message },
          'could not store a batch of turns together; storing them one by one',
        );
        const alone = [];
        for (const p of pending) {
          const stored = await writer
            .store([p.entry])
            .catch((err: unknown) => void (results[p.i] = { ok: false, error: err }));
          if (stored) alone.push({ members: [p], stored });
        }
        return alone;
      },
    );
    const items: StoredItem[] = [];
    for (const { members, stored } of groups) {
      members.forEach((p, k) => {
        const turn = stored.turns[k]!;
        if (turn.factsOverQuota > 0)
          logger.warn(
            { tenantId: p.entry.turn.tenantId, runId: p.entry.turn.runId, facts: turn.factsOverQuota },
            'facts the turn stated were not stored: the tenant holds as many facts as its tier allows',
          );
        results[p.i] = {
          ok: true,
          outcome: turn.duplicate
            ? { status: 'duplicate' }
            : { status: 'stored', facts: turn.factIds.length, superseded: turn.supersededIds.length },
        };
      });
      items.push(...stored.items);
    }
    return items;
  }

  /** The batch's reads and model calls. Throws only when a read for the whole batch fails. */
  private async prepare(turns: readonly TurnFinished[], signal: AbortSignal | undefined): Promise<Prepared[]> {
    const { turns: store, workingMemory, extractor, settings } = this.deps;
    await workingMemory.clearRuns(turns);
    const stored = await store.ingestedAmong(turns);
    const loaded = await Promise.all(
      turns.map(async (turn): Promise<{ result: IngestResult } | { messages: IngestedMessage[] }> => {
        if (stored.has(runKey(turn))) return { result: { ok: true, outcome: { status: 'duplicate' } } };
        try {
          const messages = turn.messages ?? (await this.loadMessages(turn));
          return messages.length === 0 ? { result: { ok: true, outcome: { status: 'empty' } } } : { messages };
        } catch (error) {
          return { result: { ok: false, error } };
        }
      }),
    );
    const collectionOf = (turn: TurnFinished): string => turn.collection ?? settings.defaultCollection;
    const userText = (messages: readonly IngestedMessage[]): string =>
      messages.map((m) => (m.message.role === 'user' ? m.message.content : '')).join(' ');
    const candidates = await store.candidates(
      turns.map((turn, i) => {
        const entry = loaded[i]!;
        return {
          tenantId: turn.tenantId,
          collection: collectionOf(turn),
          text: 'messages' in entry ? userText(entry.messages) : '',
        };
      }),
      settings.candidateFacts,
    );
    const prepared: Prepared[] = loaded.map((entry) =>
      'result' in entry ? entry : { result: { ok: false, error: new Error('turn was not extracted') } },
    );
    const toExtract = turns.flatMap((turn, i) => {
      const entry = loaded[i]!;
      return 'messages' in entry ? [{ i, turn, messages: entry.messages, collection: collectionOf(turn) }] : [];
    });
    const requests = extractionGroups(toExtract, settings.extractionTurnsPerRequest);
    await mapConcurrently(requests, settings.extractionConcurrency, async (group) => {
      const extracted = await extractor.extractMany(
        group.map((t) => ({ messages: t.messages, candidates: candidates[t.i]! })),
        signal,
      );
      group.forEach((t, k) => {
        const outcome = extracted[k]!;
        prepared[t.i] = outcome.ok
          ? { store: { turn: t.turn, collection: t.collection, extraction: outcome.extraction } }
          : { result: { ok: false, error: outcome.error } };
      });
    });
    return prepared;
  }

  private async loadMessages(turn: TurnFinished): Promise<IngestedMessage[]> {
    const out: IngestedMessage[] = [];
    let afterSeq = turn.firstSeq - 1;
    for (;;) {
      const page = await this.deps.messages.list({
        tenantId: turn.tenantId,
        conversationId: turn.conversationId,
        afterSeq,
        limit: 500,
        maxBytes: 8 * 1024 * 1024,
        latest: false,
      });
      for (const row of page.messages) {
        if (row.seq > turn.lastSeq) return out;
        out.push({ seq: row.seq, message: ChatMessage.parse(JSON.parse(row.json)) });
      }
      if (!page.hasMore || page.messages.length === 0) return out;
      afterSeq = page.messages.at(-1)!.seq;
    }
  }
}

/**
 * The batch's turns as extraction requests: turns of one tenant and collection, in the batch's
 * order, at most `perRequest` to a request. One request never mixes tenants (a model's answer
 * could carry one tenant's words into another's knowledge) nor collections (which a tenant may use
 * to keep knowledge apart, e.g. per end user).
 */
function extractionGroups<T extends { turn: { tenantId: string }; collection: string }>(
  turns: readonly T[],
  perRequest: number,
): T[][] {
  const open = new Map<string, T[]>();
  const groups: T[][] = [];
  for (const t of turns) {
    const key = compositeKey(t.turn.tenantId, t.collection);
    let group = open.get(key);
    if (!group || group.length >= perRequest) {
      group = [];
      open.set(key, group);
      groups.push(group);
    }
    group.push(t);
  }
  return groups;
}
