import type { AnswerVerdict } from '@platform/agent-loop';
import type { Logger } from '@platform/service-kit';
import { recordFailure } from '@platform/telemetry';
import type { ClaimedRun } from '../../journal/run-records.js';
import type { RunnableAgent, PlanningSpec } from '../../profiles.js';
import type { ParentEvents } from '../child-runs.js';
import type { FailureClass, PlanFailure, PlanView, Recovery, Severity } from './plan-view.js';

/** What one plan-and-execute run carries through its planner calls and subtasks. */
export interface PlanRunContext {
  run: ClaimedRun;
  profile: RunnableAgent;
  planning: PlanningSpec;
  /** Aborts when the run is cancelled (or its attempt stops). */
  signal: AbortSignal;
  events: ParentEvents & ((type: 'plan_updated', data: Record<string, unknown>) => void);
  /** True while the attempt is only being handed over (children go on). */
  handingOver: () => boolean;
  /** The check of the synthesised answer, for a run with an output schema (turn/output-check.ts's rule). */
  answerCheck?: (context: { content: string; refused: number }) => AnswerVerdict;
  /** What the synthesis is told of the answer's shape (the schema), with answerCheck. */
  answerInstruction?: string;
}

/** Records a failure in the plan (the failure taxonomy), in the logs and in the metrics. */
export function recordPlanFailure(
  logger: Logger,
  runId: string,
  view: PlanView,
  failure: {
    subtaskId?: string;
    class: FailureClass;
    kind: string;
    severity: Severity;
    message: string;
    recovery: Recovery;
  },
): PlanFailure {
  const entry: PlanFailure = { planVersion: view.version, ...failure, at: Date.now() };
  view.failures.push(entry);
  // The taxonomy in the logs and the metrics too (the recovery is the one decided now; a last
  // failure past the replans is re-marked `escalate` in the plan).
  logger.warn(
    {
      runId,
      planVersion: view.version,
      subtaskId: failure.subtaskId,
      failureClass: failure.class,
      kind: failure.kind,
      severity: failure.severity,
      recovery: failure.recovery,
      err: failure.message,
    },
    'plan step failed',
  );
  recordFailure({
    failureClass: failure.class,
    kind: failure.kind,
    severity: failure.severity,
    recovery: failure.recovery,
  });
  return entry;
}
