import type { agentPoolV1 } from '@platform/proto';
import type { CallerTable } from '@platform/service-kit';

/**
 * Who may call each agent-pool method, by service identity (docs/security.md). Pause, resume and
 * cancel have no caller outside the tests today; the orchestrator, which owns agent lifecycles,
 * is the one allowed.
 */
export const AGENT_POOL_CALLERS: CallerTable<typeof agentPoolV1.AgentPoolServiceService> = {
  startAgent: ['orchestrator'],
  continueAgent: ['orchestrator'],
  resolveApproval: ['orchestrator'],
  listPending: ['orchestrator', 'api'],
  getAgent: ['orchestrator', 'api'],
  getApproval: ['api'],
  pauseAgent: ['orchestrator'],
  resumeAgent: ['orchestrator'],
  cancelAgent: ['orchestrator'],
  deleteConversation: ['orchestrator'],
};
