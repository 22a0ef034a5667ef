import { NO_AGENT_RESULTS, withAgentResults, type AgentResults } from '../agent-tools/agent-results.js';
import type { PendingAgentStep } from '../agent-tools/pending-agents.js';
import type { AdmittedTurn } from './agent-resolution.js';
import { syntheticResult, TurnResult, type TurnStep } from './turn-steps.js';

/** The pending agent-tools step's output: the turn goes on, with the agents' exchanges of this message. */
export interface SettledTurn extends AdmittedTurn {
  agents: AgentResults;
}

/**
 * The pending agent-tools step: a message first answers what waits for the user (a committee, a
 * child run, agent-tools in the agent pool; `PendingAgentStep`, built in that order in server.ts).
 * Either that answer is the turn, or the loop runs with the agents' results.
 */
export class PendingAgentToolsStep implements TurnStep<AdmittedTurn, SettledTurn | TurnResult> {
  readonly name = 'pending-agent-tools';

  constructor(private readonly pending: PendingAgentStep) {}

  async run(turn: AdmittedTurn): Promise<SettledTurn | TurnResult> {
    const { attempt, profile } = turn;
    const { run, events } = attempt;
    const decision = await this.pending.beforeLoop(run, profile.model, (type, data) => events.publish(type, data));
    if (decision.kind === 'answer') {
      // Agents still waiting: the run waits with them. None (the decision found its approval
      // already answered, e.g. a second click): the answer says so, and the run is done.
      const stopReason = decision.pending.length ? 'agent_waiting' : 'final_answer';
      const answer = {
        ...syntheticResult(run.runId, stopReason, decision.response),
        messages: [{ role: 'assistant', content: decision.response } as const],
        pendingAgents: decision.pending,
      };
      return new TurnResult(attempt, withAgentResults(answer, decision.agents));
    }
    const agents = decision.kind === 'run_loop_with_agent_results' ? decision.agents : NO_AGENT_RESULTS;
    return { ...turn, agents };
  }
}
