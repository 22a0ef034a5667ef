import type { ModelPort, PendingAgent } from '@platform/agent-loop';
import type { AgentResults } from '../agents/agent-results.js';
import type { ClaimedRun } from '../journal/run-records.js';

/** What the pending-agent step decided for a message. */
export type PendingAgentDecision =
  /** No waiting agent-tool was concerned: run the ReAct loop on the message. */
  | { kind: 'run_loop' }
  /** Waiting agents finished with this message: their exchanges enter the loop's context and the turn's history. */
  | { kind: 'run_loop_with_agent_results'; agents: AgentResults }
  /**
   * An agent still waits: its prompt is the answer and the loop does not run. Agents this message
   * finished (if any) are in `agents`, stored before the answer.
   */
  | { kind: 'answer'; response: string; waitingFor: 'input' | 'approval'; agents: AgentResults; pending: PendingAgent[] };

/**
 * The pending-agent step of the pipeline (seed 000 section 3.1, step 1): before the loop, a
 * message for a conversation with a waiting agent-tool goes to that agent first
 * (agent-pool-step.ts). `model` is the run's model, for reading free-text replies. A run whose
 * loop already started (a resume) gets the decision its first attempt made, never a new one.
 */
export interface PendingAgentStep {
  beforeLoop(run: ClaimedRun, model: ModelPort): Promise<PendingAgentDecision>;
}
