import type { ModelPort, PendingAgent } from '@platform/agent-loop';
import { z } from 'zod';
import { AgentResults } from './agent-results.js';
import type { ClaimedRun } from '../journal/run-records.js';
import type { ParentEvents } from '../teams/child-runs.js';

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
  | {
      kind: 'answer';
      response: string;
      waitingFor: 'input' | 'approval';
      agents: AgentResults;
      pending: PendingAgent[];
    };

/**
 * The pending-agent step of the pipeline (seed 000 section 3.1, step 1): before the loop, a
 * message for a conversation with a waiting agent-tool goes to that agent first
 * (agent-pool-step.ts). `model` is the run's model, for reading free-text replies. A run whose
 * loop already started (a resume) gets the decision its first attempt made, never a new one.
 */
export interface PendingAgentStep {
  /** `events` is the run's event stream (a step that resumes child runs forwards their events there). */
  beforeLoop(run: ClaimedRun, model: ModelPort, events?: ParentEvents): Promise<PendingAgentDecision>;
}

/** A decision as journaled once its actions were performed (what a resumed run reports again). */
const JournaledDecision = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('run_loop_with_agent_results'), agents: AgentResults }),
  z.object({
    kind: z.literal('answer'),
    response: z.string(),
    waitingFor: z.enum(['input', 'approval']),
    agents: AgentResults,
    pending: z.array(z.custom<PendingAgent>()),
  }),
]);

/** The decision an earlier attempt of this run journaled (only a resumed run has one). */
export async function journaledDecision(
  run: ClaimedRun,
  load: (run: ClaimedRun) => Promise<unknown>,
): Promise<PendingAgentDecision | undefined> {
  if (run.attempts <= 1) return undefined;
  const decided = JournaledDecision.safeParse(await load(run));
  return decided.success ? decided.data : undefined;
}
