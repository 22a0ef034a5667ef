import type { LoopResult } from '@platform/agent-loop';
import type { RunStatus } from './journal/run-records.js';

/** The run's final status as callers see it, from the loop's stop reason. */
export function runStatus(result: LoopResult): RunStatus {
  switch (result.stopReason) {
    case 'agent_waiting':
      return 'waiting';
    case 'cancelled':
    case 'rolled_back':
      return 'cancelled';
    case 'model_error':
    case 'context_overflow':
    case 'deadline':
    case 'plan_failed':
    case 'invalid_output':
      return 'failed';
    default:
      return 'completed';
  }
}
