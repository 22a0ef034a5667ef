import {
  memoryContextItems,
  MEMORY_CONTEXT_CLOSE,
  MEMORY_CONTEXT_OPEN,
  renderMemoryContext,
  type ChatMessage,
} from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { observeGauge, PLATFORM, recordFailure } from '@platform/telemetry';
import { PlatformError, type Logger, type PromiseClient } from '@platform/service-kit';
import { DEFAULT_PREFETCH_LIMITS, PrefetchedRecalls, type PrefetchLimits } from './prefetched-recalls.js';
import { RecallConcurrencyLimit } from './recall-concurrency-limit.js';
import type {
  InjectedMemoryItem,
  MemoryRecallOutcome,
  MemoryRecallReport,
  MemoryRecallStatus,
  RecallQuery,
} from './recall-report.js';

/** How the recall step behaves (compiled from the environment in server.ts). */
export interface MemoryRecallSettings {
  /** Token budget of the whole injected block, delimiters included; 0 turns recall off. */
  contextTokens: number;
  /** Deadline of the Recall call; past it the turn goes on without recalled memory. */
  timeoutMs: number;
  /** Most items asked for. */
  limit: number;
  /** Ceiling of the adaptive cap on recalls in flight from this process (0 = no cap; see recall-concurrency-limit.ts). */
  maxInFlight: number;
  /** Collections recalled from (empty: every collection of the tenant). */
  collectionPrefix: string;
  /** The same estimate the engine's context manager uses. */
  charsPerToken: number;
}

type Recaller = Pick<PromiseClient<memoryV1.MemoryServiceClient>, 'recall'>;

/**
 * The prepare-context recall step: asks the memory service for what it knows that bears on the
 * user's message, within a deadline, and renders it as a delimited block within the token budget.
 * Memory that is down, slow or failing costs the turn its recall, never the turn: every failure
 * becomes a report with no block.
 */
export class MemoryRecall {
  /** What the step injected into each run this process prepared, until the run is recorded. */
  private readonly reports = new Map<string, MemoryRecallReport>();
  private readonly prefetched: PrefetchedRecalls;
  /** The adaptive cap on this process's recalls in flight. */
  readonly concurrency: RecallConcurrencyLimit;

  constructor(
    private readonly memory: Recaller,
    private readonly settings: MemoryRecallSettings,
    private readonly logger: Logger,
    prefetchLimits: PrefetchLimits = DEFAULT_PREFETCH_LIMITS,
  ) {
    this.prefetched = new PrefetchedRecalls(prefetchLimits);
    this.concurrency = new RecallConcurrencyLimit({ max: settings.maxInFlight });
  }

  /**
   * Reports the cap as the gauge `platform.memory.recall.concurrency` (`kind` = `limit` or
   * `in_flight`) until the returned function is called.
   */
  observeConcurrency(): () => void {
    return observeGauge(
      PLATFORM.memoryRecallConcurrencyMetric,
      {
        unit: '{recall}',
        description: 'Recalls in flight from this orchestrator to the memory service, and their adaptive limit',
      },
      () => [
        { value: this.concurrency.limit, attributes: { [PLATFORM.memoryRecallConcurrencyKind]: 'limit' } },
        { value: this.concurrency.inFlight, attributes: { [PLATFORM.memoryRecallConcurrencyKind]: 'in_flight' } },
      ],
    );
  }

  /**
   * Starts the recall for a run's message as the message arrives, so the search overlaps the run's
   * admission and claim; the run's {@link recall} then takes its outcome (see prefetched-recalls.ts).
   */
  prefetch(query: RecallQuery & { runId: string }): void {
    this.prefetched.put(query.runId, query, () => this.recallFor(query));
  }

  async recall(query: RecallQuery): Promise<MemoryRecallOutcome> {
    const outcome = await ((query.runId ? this.prefetched.take(query.runId, query) : undefined) ??
      this.recallFor(query));
    if (query.runId) this.reports.set(query.runId, outcome.report);
    return outcome;
  }

  /**
   * The report to record with a run: what this process's recall injected into it, or, for a
   * resumed run whose input an earlier attempt journaled, what that input's system prompt holds.
   */
  reportFor(runId: string, journaledInput: readonly ChatMessage[] | null | undefined): MemoryRecallReport | undefined {
    const fresh = this.reports.get(runId);
    if (fresh || !journaledInput) return fresh;
    const system = journaledInput[0]?.role === 'system' ? journaledInput[0].content : '';
    return this.recovered(system);
  }

  /** Forgets the run's report (the attempt is over, recorded or not). */
  release(runId: string): void {
    this.reports.delete(runId);
  }

  private async recallFor(query: RecallQuery): Promise<MemoryRecallOutcome> {
    const budgetTokens = Math.min(this.settings.contextTokens, query.budgetTokens ?? this.settings.contextTokens);
    const started = performance.now();
    const report = (status: MemoryRecallStatus, extra: Partial<MemoryRecallReport> = {}): MemoryRecallReport => ({
      status,
      items: [],
      blockTokens: 0,
      budgetTokens,
      droppedForBudget: 0,
      durationMs: Math.round(performance.now() - started),
      ...extra,
    });
    const frameTokens = this.tokens(renderMemoryContext([]));
    if (budgetTokens <= frameTokens || query.query.trim() === '')
      return { block: undefined, report: report('disabled') };

    const release = this.concurrency.tryAcquire();
    if (!release) return { block: undefined, report: report('shed', { error: this.shed(query) }) };
    let response: memoryV1.RecallResponse;
    try {
      response = await this.memory.recall(
        {
          tenantId: query.tenantId,
          query: query.query,
          collectionPrefix: this.settings.collectionPrefix,
          limit: this.settings.limit,
          // Each item costs its line's "- " and newline on top of the memory service's estimate.
          tokenBudget: budgetTokens - frameTokens,
          conversationId: query.conversationId,
          includeEpisodes: true,
        },
        { deadlineMs: this.settings.timeoutMs },
      );
    } catch (err) {
      const status = failureStatus(err);
      release(status === 'timed_out' ? 'timed_out' : 'failed');
      // A `system` failure (the taxonomy of docs/operations.md): the turn goes on without it (recovery none).
      const failure = {
        failureClass: 'system',
        kind: status === 'timed_out' ? 'memory_timeout' : 'memory_unavailable',
        severity: 'low',
        recovery: 'none',
      };
      this.logger.warn(
        {
          runId: query.runId,
          tenantId: query.tenantId,
          conversationId: query.conversationId,
          status,
          ...failure,
          err: (err as Error).message,
        },
        'memory recall failed; the turn goes on without recalled memory',
      );
      recordFailure(failure);
      return { block: undefined, report: report(status, { error: (err as Error).message }) };
    }
    release('answered');

    const items = this.fitToBudget(response.items.map(toInjected), budgetTokens - frameTokens);
    const common = {
      searchMode: response.searchMode,
      ...(response.vectorError ? { vectorError: response.vectorError } : {}),
      droppedForBudget: response.droppedForBudget + (response.items.length - items.length),
    };
    if (items.length === 0) return { block: undefined, report: report('nothing_relevant', common) };
    const block = renderMemoryContext(items.map((item) => item.text));
    return { block, report: report('injected', { ...common, items, blockTokens: this.tokens(block) }) };
  }

  /** Counts and explains a recall the cap did not send (logged at debug: under overload there is one per turn). */
  private shed(query: RecallQuery): string {
    const error = `not sent: ${this.concurrency.inFlight} recalls in flight reached this orchestrator's adaptive limit (${this.concurrency.limit} of at most ${this.settings.maxInFlight})`;
    const failure = { failureClass: 'system', kind: 'memory_recall_shed', severity: 'low', recovery: 'none' };
    this.logger.debug(
      { runId: query.runId, tenantId: query.tenantId, conversationId: query.conversationId, ...failure, err: error },
      'memory recall shed; the turn goes on without recalled memory',
    );
    recordFailure(failure);
    return error;
  }

  /**
   * For a resumed run, whose input an earlier attempt journaled: a report of what that input's
   * system prompt holds (the items, without the scores the earlier attempt saw).
   */
  recovered(systemPrompt: string): MemoryRecallReport {
    return recoveredReport(systemPrompt, this.settings.contextTokens, this.settings.charsPerToken);
  }

  /** Keeps the items, in order, whose lines fit the budget (the server's estimate may differ from ours). */
  private fitToBudget(items: InjectedMemoryItem[], budget: number): InjectedMemoryItem[] {
    const kept: InjectedMemoryItem[] = [];
    let used = 0;
    for (const item of items) {
      const tokens = this.tokens(`- ${item.text}\n`);
      if (item.text.trim() === '' || used + tokens > budget) continue;
      kept.push({ ...item, tokens });
      used += tokens;
    }
    return kept;
  }

  private tokens(text: string): number {
    return Math.ceil(text.length / this.settings.charsPerToken);
  }
}

function toInjected(item: memoryV1.RecalledItem): InjectedMemoryItem {
  const base = {
    text: item.text,
    score: item.score,
    matchedBy: item.matchedBy,
    why: item.why,
    tokens: item.estimatedTokens,
  };
  if (item.fact) return { kind: 'fact', id: item.fact.factId, ...base };
  if (item.episode) return { kind: 'episode', id: item.episode.episodeId, ...base };
  return { kind: 'message', id: `${item.message?.conversationId ?? ''}#${item.message?.seq ?? 0}`, ...base };
}

function failureStatus(err: unknown): MemoryRecallStatus {
  if (err instanceof PlatformError) {
    if (err.kind === 'deadline_exceeded' || err.kind === 'cancelled') return 'timed_out';
    if (err.kind === 'unavailable') return 'unavailable';
  }
  return 'failed';
}

/** Adds the block to the profile's system prompt, after it, set apart by a blank line. */
export function withMemoryContext(systemPrompt: string, block: string | undefined): string {
  if (!block) return systemPrompt;
  return systemPrompt.trim() === '' ? block : `${systemPrompt}\n\n${block}`;
}

function recoveredReport(systemPrompt: string, budgetTokens: number, charsPerToken: number): MemoryRecallReport {
  const items = memoryContextItems(systemPrompt);
  const open = systemPrompt.indexOf(MEMORY_CONTEXT_OPEN);
  const close = systemPrompt.indexOf(MEMORY_CONTEXT_CLOSE, open);
  const blockChars = open >= 0 && close >= 0 ? close + MEMORY_CONTEXT_CLOSE.length - open : 0;
  return {
    status: items.length > 0 ? 'recovered' : 'nothing_relevant',
    items: items.map((text) => ({
      kind: 'unknown',
      id: '',
      text,
      score: 0,
      matchedBy: [],
      why: 'injected by an earlier attempt of this run',
      tokens: Math.ceil((text.length + 3) / charsPerToken),
    })),
    blockTokens: Math.ceil(blockChars / charsPerToken),
    budgetTokens,
    droppedForBudget: 0,
    durationMs: 0,
  };
}
