import { ChatMessage, type IngestedMessage, type TurnFinished } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { Extractor } from '../extraction/extractor.js';
import type { MessageStore } from '../message-store.js';
import type { TurnStore } from '../knowledge/turn-store.js';
import type { WorkingMemoryStore } from '../knowledge/working-memory-store.js';
import type { VectorIndex } from '../recall/vector-index.js';

export interface TurnIngestorSettings {
  defaultCollection: string;
  /** Current facts shown to the extractor as supersession candidates. */
  candidateFacts: number;
}

export type IngestOutcome = { status: 'stored'; facts: number; superseded: number } | { status: 'duplicate' } | { status: 'empty' };

/**
 * One finished turn into long-term knowledge: the run's working memory is dropped (the run is
 * over), the turn's messages are read (from the message, or from the history this service holds),
 * the extractor is given the current facts the turn may contradict, and everything is written in
 * one transaction keyed by (tenant, run). Embeddings follow the commit and never fail the turn:
 * what could not be embedded now is embedded by the index's backfill.
 */
export class TurnIngestor {
  constructor(
    private readonly deps: {
      messages: MessageStore;
      turns: TurnStore;
      workingMemory: WorkingMemoryStore;
      extractor: Extractor;
      vectors: VectorIndex | undefined;
      settings: TurnIngestorSettings;
      logger: Logger;
    },
  ) {}

  async ingest(turn: TurnFinished, signal?: AbortSignal): Promise<IngestOutcome> {
    const { turns, workingMemory, extractor, settings, logger } = this.deps;
    await workingMemory.clearRun(turn.tenantId, turn.runId);
    if (await turns.isIngested(turn.tenantId, turn.runId)) return { status: 'duplicate' };
    const messages = turn.messages ?? (await this.loadMessages(turn));
    if (messages.length === 0) return { status: 'empty' };
    const collection = turn.collection ?? settings.defaultCollection;
    const userText = messages.map((m) => (m.message.role === 'user' ? m.message.content : '')).join(' ');
    const candidates = await turns.candidates(turn.tenantId, collection, userText, settings.candidateFacts);
    const extraction = await extractor.extract(messages, candidates, signal);
    const stored = await turns.store(turn, collection, extraction);
    if (stored.duplicate) return { status: 'duplicate' };
    if (this.deps.vectors) {
      await this.deps.vectors
        .indexNew(turn.tenantId, stored.factIds, stored.episodeId ? [stored.episodeId] : [])
        .catch((err: unknown) => logger.warn({ runId: turn.runId, err: (err as Error).message }, 'could not embed the turn now; the backfill will'));
    }
    return { status: 'stored', facts: stored.factIds.length, superseded: stored.supersededIds.length };
  }

  private async loadMessages(turn: TurnFinished): Promise<IngestedMessage[]> {
    const out: IngestedMessage[] = [];
    let afterSeq = turn.firstSeq - 1;
    for (;;) {
      const page = await this.deps.messages.list({ tenantId: turn.tenantId, conversationId: turn.conversationId, afterSeq, limit: 500, maxBytes: 8 * 1024 * 1024, latest: false });
      for (const row of page.messages) {
        if (row.seq > turn.lastSeq) return out;
        out.push({ seq: row.seq, message: ChatMessage.parse(JSON.parse(row.json)) });
      }
      if (!page.hasMore || page.messages.length === 0) return out;
      afterSeq = page.messages.at(-1)!.seq;
    }
  }
}
