import type { ChatMessage } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { Logger, PromiseClient } from '@platform/service-kit';
import { recordTenantTokens, recordTurn } from '@platform/telemetry';
import type { ShouldProcess } from '../admission/should-process.js';
import type { FinishedTurnPublisher } from '../events/publish-finished-turn.js';
import type { TriggeredRunPublisher } from '../events/publish-triggered-run.js';
import type { RunRecord, RunRecords } from '../journal/run-records.js';
import type { MemoryRecall } from '../recall/memory-recall.js';
import { runStatus } from '../run-status.js';
import type { TurnResult, TurnStep } from './turn-steps.js';

/** The post-process step's output: the turn's result, recorded. */
export interface RecordedTurn {
  turn: TurnResult;
  finished: RunRecord;
}

export interface PostProcessStepOptions {
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  records: RunRecords;
  /** Reports what the recall step injected (kept with the run's result). */
  memoryRecall: Pick<MemoryRecall, 'reportFor'>;
  /** Counts the tenant's tokens against its daily budget. */
  shouldProcess: Pick<ShouldProcess, 'recordTokens'>;
  /** Hands each finished turn to long-term memory (off the turn's path); absent = ingestion off. */
  finishedTurns?: FinishedTurnPublisher;
  /** Publishes the end of runs that trigger tasks started (absent: nobody listens). */
  triggeredRuns?: TriggeredRunPublisher;
  logger: Logger;
}

/**
 * The post-process step: the turn's raw messages appended to memory exactly once (the run id is
 * the append id, so a resumed run's second append is a no-op), then the run's outcome and the
 * tenant's token usage recorded.
 */
export class PostProcessStep implements TurnStep<TurnResult, RecordedTurn> {
  readonly name = 'post-process';

  constructor(private readonly options: PostProcessStepOptions) {}

  async run(turn: TurnResult): Promise<RecordedTurn> {
    const { run } = turn.attempt;
    const { result } = turn;
    const { memory, records, memoryRecall, shouldProcess, finishedTurns, triggeredRuns, logger } = this.options;
    // A run for a user's message records the message first; a platform notice (an expiry) does not.
    const turnMessages: ChatMessage[] =
      run.kind === 'message' ? [{ role: 'user', content: run.content }, ...result.messages] : [...result.messages];
    // What the user was asked when agents wait belongs to the conversation (the next reply answers it).
    if (result.stopReason === 'agent_waiting' && turnMessages.at(-1)?.role !== 'assistant')
      turnMessages.push({ role: 'assistant', content: result.response });
    // A rolled-back run (history-seal.ts) leaves nothing in history, nor in long-term memory.
    if (turn.history === 'append') {
      const appended = await memory.appendMessages({
        tenantId: run.tenantId,
        conversationId: run.conversationId,
        messagesJson: turnMessages.map((m) => JSON.stringify(m)),
        runId: run.runId,
        appendId: run.runId,
      });
      void finishedTurns?.publish({
        tenantId: run.tenantId,
        conversationId: run.conversationId,
        runId: run.runId,
        profile: run.profile,
        tier: run.tier,
        messages: turnMessages,
        firstSeq: appended.firstSeq,
      });
    }
    await triggeredRuns?.publish(run, result);
    const finished = await records.finish(run, runStatus(result), result, memoryRecall.reportFor(run.runId, run.input));
    // From the message's arrival: queueing, every attempt and the pipeline, as the user waited.
    // Tenant agents' names are the tenants' to choose: the metric counts them as one (a bounded label).
    const profile = run.agent && !run.agent.id.startsWith('builtin:') ? 'tenant-agent' : run.profile;
    recordTurn(
      { profile, status: finished.status, stopReason: result.stopReason },
      Math.max(0, Date.now() - run.createdAt.getTime()) / 1000,
    );
    recordTenantTokens(run.tenantId, result.usage.inputTokens, result.usage.outputTokens);
    await shouldProcess.recordTokens(run.tenantId, result.usage.totalTokens);
    logger.info(
      {
        runId: run.runId,
        profile: run.profile,
        attempt: run.attempts,
        stopReason: result.stopReason,
        turns: result.turns,
        toolCalls: result.toolCalls.length,
      },
      'turn finished',
    );
    return { turn, finished };
  }
}
