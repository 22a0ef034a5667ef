import type { ClaimedRun, RunRecord } from '../journal/run-records.js';
import type { HeldLease } from './conversation-lease.js';

/**
 * What the conversation queue needs of whoever runs a turn: the queue owns this interface, so it
 * depends on no turn code (the turn runner implements it).
 */
export interface RunExecutor {
  /** Runs the claimed run to its end; the finished run, or undefined when another holder took it over. */
  execute(run: ClaimedRun, lease: HeldLease): Promise<RunRecord | undefined>;
}
