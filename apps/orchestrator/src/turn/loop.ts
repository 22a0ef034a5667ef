import { runAgentLoop, type LoopEvent } from '@platform/agent-loop';
import type { Logger } from '@platform/service-kit';
import { withAgentResults } from '../agent-tools/agent-results.js';
import { RunReplay } from '../journal/journaled-ports.js';
import type { RunSteers } from '../journal/run-steers.js';
import type { RunSteps } from '../journal/run-steps.js';
import { journalFor } from '../replays/replay-journal.js';
import { reportFailure, reportLoopFailure, SYSTEM_FAILURES } from './failure-report.js';
import type { CheckedTurn } from './output-check.js';
import { SteerIntake } from './steering.js';
import { TurnResult, type TurnStep } from './turn-steps.js';

/**
 * The loop step: the ReAct loop over the run's journal. A resumed run replays its journaled model
 * and tool steps (publishing nothing of them again) and goes on live from there; every new step is
 * journaled, and a failed journal write abandons the attempt. A run with an output schema asks
 * for it and has its final answers checked (output-check.ts). Steering messages join before a
 * model call (steering.ts): a resumed run puts back those it took, at their places.
 */
export class LoopStep implements TurnStep<CheckedTurn, TurnResult> {
  readonly name = 'loop';

  constructor(
    private readonly steps: RunSteps,
    private readonly steers: Pick<RunSteers, 'take' | 'taken'>,
    private readonly logger: Logger,
  ) {}

  async run({ attempt, profile, tools, input, agents, answer }: CheckedTurn): Promise<TurnResult> {
    const { run, events, control } = attempt;
    const { steps, logger } = this;
    const resumed = run.attempts > 1;
    // A replay of another run (replays/) starts with the original's steps before its `fromStep`; a
    // resumed run puts back the steers it took before (at their places).
    const [{ journal, replayed }, earlier] = await Promise.all([
      journalFor(steps, run),
      resumed ? this.steers.taken(run.tenantId, run.runId) : Promise.resolve([]),
    ]);
    const replay = new RunReplay(journal, {
      // The write holding a fresh attempt's first own response also keeps the input it was asked with.
      recordModels: (models, heldTools) =>
        steps.recordModels(run, models, {
          heldTools,
          ...(models[0]?.[0] === replayed + 1 && !run.input ? { input } : {}),
        }),
      recordTool: (callId, outcome) => steps.recordTool(run, callId, outcome),
    });
    replay.onWriteFailure((err) => {
      logger.error({ runId: run.runId, err: (err as Error).message }, 'a journal write failed; stopping this attempt');
      reportFailure(logger, { runId: run.runId, profile: run.profile }, SYSTEM_FAILURES.journalWrite, {
        attempt: run.attempts,
      });
      attempt.abandon('journal write failed');
    });
    if (resumed) {
      logger.info(
        {
          runId: run.runId,
          attempt: run.attempts,
          journaledModelSteps: journal.models.length,
          journaledToolSteps: journal.tools.size,
        },
        'resuming run',
      );
      events.publish('state_change', { state: 'running', reason: 'resumed' });
    }
    const steering = new SteerIntake({
      run,
      steers: this.steers,
      notices: attempt.steering,
      earlier,
      replaying: () => replay.replaying,
      failed: (err) => {
        logger.error({ runId: run.runId, err: (err as Error).message }, 'taking a steer failed; stopping this attempt');
        attempt.abandon('steer take failed');
      },
    });
    // The replayed part of a resumed run published its events before; only new work is published.
    let end: Extract<LoopEvent, { type: 'execution_end' }> | undefined;
    const sink = (event: LoopEvent): void => {
      // An abandoned attempt says nothing more: its stop is not the run's (the next attempt goes on).
      if (attempt.abandoned) return;
      if (event.type === 'execution_end') end = event;
      else if (!replay.replaying) {
        events.sink(event);
        reportLoopFailure(logger, { runId: run.runId, profile: run.profile }, event);
      }
    };
    const result = await runAgentLoop(
      { runId: run.runId, messages: input },
      {
        model: replay.model(profile.model),
        fallbackModels: profile.fallbackModels.map((m) => replay.model(m)),
        tools: replay.tools(tools),
        config: profile.loopConfig,
        control,
        // An interrupt stops the run only past its journal: the completed steps are rebuilt first.
        mayInterrupt: () => !replay.replaying,
        incoming: steering.incoming,
        events: sink,
        stream: run.stream,
        ...(profile.sampling ? { sampling: profile.sampling } : {}),
        ...(answer?.responseFormat ? { responseFormat: answer.responseFormat } : {}),
        ...(answer?.textFallback ? { textFallback: answer.textFallback } : {}),
        ...(answer
          ? { hooks: { checkAnswer: (context: { content: string; refused: number }) => answer.check(context) } }
          : {}),
      },
    );
    // The agents' exchanges happened before the loop: the turn reports and stores them first.
    const turn = withAgentResults(result, agents);
    return new TurnResult(attempt, turn, end ? { ...end, result: turn } : undefined);
  }
}
