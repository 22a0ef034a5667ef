import { withAgentResults } from '../agents/agent-results.js';
import type { SettledTurn } from '../turn/pending-agent-tools.js';
import { TurnResult, type TurnStep } from '../turn/turn-steps.js';
import { parentEventsOf } from './child-runs.js';
import type { PlanExecutor } from './plan/plan-execute.js';

/**
 * The teams' step in the turn: a plan-and-execute profile runs its plan (`plan/`, subtasks as child
 * runs) instead of the ReAct loop; every other turn passes on unchanged.
 */
export class PlanStep implements TurnStep<SettledTurn, SettledTurn | TurnResult> {
  readonly name = 'plan-and-execute';

  constructor(private readonly plans: Pick<PlanExecutor, 'run'>) {}

  async run(turn: SettledTurn): Promise<SettledTurn | TurnResult> {
    const { attempt, profile, agents } = turn;
    if (profile.strategy !== 'plan-and-execute' || !profile.planning) return turn;
    // A plan has no step boundary of the loop's: an interrupt cancels its subtasks still running
    // (their child runs settle as cancelled) and keeps what the plan completed.
    attempt.cancelsOnInterrupt = true;
    if (attempt.control.interruptRequested) attempt.interrupt();
    const planned = await this.plans.run({
      run: attempt.run,
      profile,
      planning: profile.planning,
      signal: attempt.control.signal,
      events: parentEventsOf(attempt.events),
      handingOver: attempt.handingOver,
    });
    return new TurnResult(attempt, withAgentResults(planned, agents));
  }
}
