import { withAgentResults } from '../agent-tools/agent-results.js';
import type { SettledTurn } from '../turn/pending-agent-tools.js';
import { syntheticResult, TurnResult, type TurnStep } from '../turn/turn-steps.js';
import { parentEventsOf } from './child-runs.js';
import type { PlanExecutor } from './plan/plan-execute.js';
import { answerVerdict } from '../structured/answer-verdict.js';
import type { CompiledOutputSchema, OutputSchemas } from '../structured/output-schemas.js';
import { schemaInstruction } from '../turn/output-check.js';

export interface PlanStepOptions {
  /** Compiles the run's output schema, for the check of the synthesised answer. */
  schemas: Pick<OutputSchemas, 'compile'>;
  /** Answers refused before the run stops with `invalid_output` (the loop's number). */
  retries: number;
}

/**
 * The teams' step in the turn: a plan-and-execute profile runs its plan (`plan/`, subtasks as child
 * runs) instead of the ReAct loop; every other turn passes on unchanged.
 */
export class PlanStep implements TurnStep<SettledTurn, SettledTurn | TurnResult> {
  readonly name = 'plan-and-execute';

  constructor(
    private readonly plans: Pick<PlanExecutor, 'run'>,
    private readonly options?: PlanStepOptions,
  ) {}

  async run(turn: SettledTurn): Promise<SettledTurn | TurnResult> {
    const { attempt, profile, agents } = turn;
    if (profile.strategy !== 'plan-and-execute' || !profile.planning) return turn;
    // A plan has no step boundary of the loop's: an interrupt cancels its subtasks still running
    // (their child runs settle as cancelled) and keeps what the plan completed.
    attempt.cancelsOnInterrupt = true;
    if (attempt.control.interruptRequested) attempt.interrupt();
    // Compiled when the message or the agent was accepted: one that no longer compiles ends the run as the output check would.
    const schema = attempt.run.outputSchema ?? profile.outputSchema;
    let compiled: CompiledOutputSchema | undefined;
    try {
      compiled = schema && this.options ? this.options.schemas.compile(schema) : undefined;
    } catch (err) {
      const message = `the run's output schema no longer compiles: ${(err as Error).message}`;
      return new TurnResult(
        attempt,
        syntheticResult(attempt.run.runId, 'invalid_output', message, { kind: 'output_schema', message }),
      );
    }
    const retries = this.options?.retries ?? 0;
    const planned = await this.plans.run({
      run: attempt.run,
      profile,
      planning: profile.planning,
      signal: attempt.control.signal,
      events: parentEventsOf(attempt.events),
      handingOver: attempt.handingOver,
      ...(compiled && schema
        ? {
            answerCheck: (context: { content: string; refused: number }) => answerVerdict(compiled, retries, context),
            answerInstruction: schemaInstruction(schema),
          }
        : {}),
    });
    return new TurnResult(attempt, withAgentResults(planned, agents));
  }
}
