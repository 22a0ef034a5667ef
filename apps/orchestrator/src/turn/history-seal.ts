import { stopMessages, type LoopResult } from '@platform/agent-loop';
import type { RunStops } from '../journal/run-stops.js';
import { TurnResult, type TurnStep } from './turn-steps.js';

/**
 * The history-seal step, before post-process: settles whether a newer message took the run's
 * place (docs/conversations.md). The run's history is sealed for appending unless a rollback was
 * asked (run-stops.ts); a rolled-back run ends `rolled_back` with nothing for history, an
 * interrupted one ends `interrupted` with a closing assistant message that says so.
 */
export class HistorySealStep implements TurnStep<TurnResult, TurnResult> {
  readonly name = 'history-seal';

  constructor(private readonly stops: Pick<RunStops, 'sealHistory'>) {}

  async run(turn: TurnResult): Promise<TurnResult> {
    const { attempt } = turn;
    if ((await this.stops.sealHistory(attempt.run)) === 'rolled_back')
      return withResult(
        turn,
        { ...turn.result, stopReason: 'rolled_back', response: stopMessages.rolledBack, pendingAgents: [] },
        'withheld',
      );
    const interrupted =
      turn.result.stopReason === 'interrupted' ||
      (turn.result.stopReason === 'cancelled' && attempt.interruptCancelled);
    if (!interrupted) return turn;
    const response = stopMessages.interrupted;
    return withResult(turn, {
      ...turn.result,
      stopReason: 'interrupted',
      response,
      // The mark in history: the next run (the newer message's) sees that this one stopped early.
      messages: [...turn.result.messages, { role: 'assistant', content: response }],
    });
  }
}

function withResult(turn: TurnResult, result: LoopResult, history: TurnResult['history'] = 'append'): TurnResult {
  const end = turn.end?.type === 'execution_end' ? { ...turn.end, result } : undefined;
  return new TurnResult(turn.attempt, result, end, history);
}
