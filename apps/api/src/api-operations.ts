import { adminOperations } from './routes/admin.js';
import { agentOperations } from './routes/agents.js';
import { agentVersionOperations } from './routes/agent-versions.js';
import { conversationForkOperations } from './routes/conversation-forks.js';
import { conversationPinOperations } from './routes/conversation-pins.js';
import { auditOperations } from './routes/audit.js';
import { keyOperations } from './routes/keys.js';
import { meOperations } from './routes/me.js';
import { approvalOperations } from './routes/approvals.js';
import { chatCompletionOperations } from './routes/chat-completions.js';
import { responseOperations } from './routes/responses.js';
import { agUiOperations } from './routes/ag-ui.js';
import { mcpOperations } from './routes/mcp.js';
import { mcpAuthOperations } from './routes/mcp-auth.js';
import { a2aOperations } from './routes/a2a.js';
import { a2aCardOperations } from './routes/a2a-card.js';
import { conversationOperations } from './routes/conversations.js';
import { conversationResourceOperations } from './routes/conversation-resources.js';
import { conversationDeletionOperations } from './routes/conversation-deletions.js';
import { credentialOperations } from './routes/credentials.js';
import { healthOperations } from './routes/health.js';
import { memoryOperations } from './routes/memory.js';
import { modelConnectionOperations } from './routes/model-connections.js';
import { remoteAgentOperations } from './routes/remote-agents.js';
import { notificationOperations } from './routes/notifications.js';
import { openApiOperations } from './routes/openapi.js';
import { runListOperations } from './routes/run-list.js';
import { runOperations } from './routes/runs.js';
import { runReplayOperations } from './routes/run-replays.js';
import { runWebhookOperations } from './routes/run-webhooks.js';
import { taskOperations } from './routes/tasks.js';
import { toolOperations } from './routes/tools.js';
import { usageOperations } from './routes/usage.js';
import type { OperationSpec } from './openapi/operation.js';

/**
 * Every operation of the HTTP API, in the order the document lists them. It sits above both the
 * routes (which define the operations) and `openapi/` (which turns operations into a document).
 */
export const allOperations: readonly OperationSpec[] = [
  healthOperations,
  openApiOperations,
  agentOperations,
  agentVersionOperations,
  conversationPinOperations,
  conversationResourceOperations,
  conversationOperations,
  conversationDeletionOperations,
  conversationForkOperations,
  runListOperations,
  runOperations,
  runReplayOperations,
  runWebhookOperations,
  approvalOperations,
  toolOperations,
  memoryOperations,
  credentialOperations,
  modelConnectionOperations,
  remoteAgentOperations,
  taskOperations,
  notificationOperations,
  usageOperations,
  chatCompletionOperations,
  responseOperations,
  agUiOperations,
  mcpOperations,
  mcpAuthOperations,
  a2aCardOperations,
  a2aOperations,
  meOperations,
  keyOperations,
  auditOperations,
  adminOperations,
].flatMap((group) => Object.values(group) as OperationSpec[]);
