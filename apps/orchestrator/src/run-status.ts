import type { LoopResult } from '@platform/agent-loop';
import { finishedRunStatus } from '@platform/contracts';
import type { RunStatus } from './journal/run-records.js';

/** The run's final status as callers see it, from the loop's stop reason. */
export function runStatus(result: LoopResult): RunStatus {
  return finishedRunStatus(result.stopReason);
}
