import type { ClaimedRun } from '../journal/run-records.js';

/** What the pending-agent step decided for a message. */
export type PendingAgentDecision =
  /** No agent of this conversation waits for the user: run the ReAct loop on the message. */
  | { kind: 'run_loop' }
  /** A waiting agent completed with this message: its result enters the loop's context. */
  | { kind: 'run_loop_with_agent_result'; agentResult: string }
  /** The agent still waits: its prompt is the answer and the loop does not run. */
  | { kind: 'answer'; response: string; waitingFor: 'input' | 'approval' };

/**
 * The pending-agent step of the pipeline (seed 000 section 3.1, step 1): before the loop, a
 * message for a conversation with a waiting agent-tool goes to that agent first. The agent pool
 * (apps/agent-pool) implements it; without a pool nothing can be waiting, and every message runs
 * the loop.
 */
export interface PendingAgentStep {
  beforeLoop(run: ClaimedRun): Promise<PendingAgentDecision>;
}

/** The step for a deployment without an agent pool: no agent-tool can be waiting. */
export const noAgentPool: PendingAgentStep = {
  beforeLoop: () => Promise.resolve({ kind: 'run_loop' }),
};
