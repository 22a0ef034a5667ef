import type { agentsV1, conversationsV1, erasureV1, orchestratorV1, remoteAgentsV1 } from '@platform/proto';
import type { CallerTable } from '@platform/service-kit';

/**
 * Who may call each orchestrator method, by service identity (docs/security.md). The api acts for
 * the tenant of a verified token; the trigger fires tasks, and calls their tools through the tool
 * gate, for their tenants on its own.
 */
export const ORCHESTRATOR_CALLERS: CallerTable<typeof orchestratorV1.OrchestratorServiceService> = {
  handleMessage: ['api', 'trigger'],
  getRun: ['api'],
  cancelRun: ['api'],
  listTools: ['api'],
  getUsage: ['api'],
  listRuns: ['api'],
  // Tried calls come from the api; a task's condition polls and executor fires from the trigger,
  // both through the one tool gate (tool-gate/), which applies the task's profile.
  callTool: ['api', 'trigger'],
  callToolBatch: ['trigger'],
  getToolCall: ['api'],
  listRunWebhookDeliveries: ['api'],
  getWebhookSettings: ['api'],
  updateWebhookSettings: ['api'],
  createA2APushConfig: ['api'],
  getA2APushConfig: ['api'],
  listA2APushConfigs: ['api'],
  deleteA2APushConfig: ['api'],
};

/** The AgentService is the api's: it acts for the tenant of a verified token. */
export const AGENT_CALLERS: CallerTable<typeof agentsV1.AgentServiceService> = {
  createAgent: ['api'],
  getAgent: ['api'],
  listAgents: ['api'],
  updateAgent: ['api'],
  deleteAgent: ['api'],
  listAgentVersions: ['api'],
  getAgentVersion: ['api'],
  publishAgentVersion: ['api'],
  rollbackAgent: ['api'],
  pinConversation: ['api'],
  getConversationPin: ['api'],
  unpinConversation: ['api'],
};

/** The ConversationService is the api's: it acts for the tenant (and user, and role) of a verified token. */
export const CONVERSATION_CALLERS: CallerTable<typeof conversationsV1.ConversationServiceService> = {
  listConversations: ['api'],
  getConversation: ['api'],
  updateConversation: ['api'],
  checkConversationAccess: ['api'],
};

/** The ErasureService is the api's: deletions and erasures asked for by a tenant's verified token. */
export const ERASURE_CALLERS: CallerTable<typeof erasureV1.ErasureServiceService> = {
  deleteConversation: ['api'],
  getConversationDeletion: ['api'],
  eraseEndUser: ['api'],
};

/** The RemoteAgentService is the api's: a tenant's remote A2A agents, for the tenant of a verified token. */
export const REMOTE_AGENT_CALLERS: CallerTable<typeof remoteAgentsV1.RemoteAgentServiceService> = {
  createRemoteAgent: ['api'],
  getRemoteAgent: ['api'],
  listRemoteAgents: ['api'],
  updateRemoteAgent: ['api'],
  deleteRemoteAgent: ['api'],
};
