import { ZERO_USAGE, type LoopEvent, type LoopResult } from '@platform/agent-loop';
import type { TurnAttempt } from './attempt.js';

/**
 * One phase of a turn, in a file of its own: takes the previous step's output and gives the next
 * step's input. A step before the loop may conclude the turn early by answering a {@link TurnResult}
 * (the rest of the preparation is skipped; the finishing steps still run on it).
 */
export interface TurnStep<In, Out> {
  /** Names the step in logs and in the README's path of a turn. */
  readonly name: string;
  run(input: In): Promise<Out>;
}

/** The turn's result: what the loop (or a step that concluded early) produced, for the finishing steps. */
export class TurnResult {
  constructor(
    readonly attempt: TurnAttempt,
    readonly result: LoopResult,
    /** The loop's own `execution_end`, when the loop ran (its result is the turn's); absent = one is made up. */
    readonly end?: LoopEvent,
    /** `withheld`: nothing of the turn goes to history (a newer message rolled the run back). */
    readonly history: 'append' | 'withheld' = 'append',
  ) {}
}

type Untyped = TurnStep<unknown, unknown>;

/**
 * An ordered list of steps, typed link by link: each step's input is what the one before gives
 * (a {@link TurnResult} passes straight on to the end of the list). The runner folds `steps`.
 */
export class TurnSteps<In, Out> {
  private constructor(readonly steps: readonly Untyped[]) {}

  /** An empty list taking `In`. */
  static of<In>(): TurnSteps<In, In> {
    return new TurnSteps<In, In>([]);
  }

  /** The list with `step` appended. */
  then<Next>(step: TurnStep<Exclude<Out, TurnResult>, Next>): TurnSteps<In, Next | Extract<Out, TurnResult>> {
    return new TurnSteps([...this.steps, step]);
  }
}

/** A result the loop never produced (an expiry notice, a profile gone, the pending-agent step answering). */
export function syntheticResult(
  runId: string,
  stopReason: LoopResult['stopReason'],
  response: string,
  error?: LoopResult['error'],
): LoopResult {
  return {
    runId,
    response,
    stopReason,
    turns: 0,
    usage: ZERO_USAGE,
    durationMs: 0,
    pendingAgents: [],
    toolCalls: [],
    messages: [],
    transcript: [],
    ...(error ? { error } : {}),
  };
}
