export { defineTool, TOOL_DEFAULTS, type ToolSpec, type ToolDefinition, type ToolContext } from './define-tool.js';
export { ToolFailure } from './tool-failure.js';
export { serveRunner, RUNNER_DEFAULTS, type RunnerOptions, type ToolRunner } from './serve-runner.js';
export { handleToolCall, type CallEnvironment } from './handle-call.js';
export { truncateOutput, TRUNCATION_MARKER } from './truncate-output.js';
export { inputJsonSchema, schemaHash } from './json-schema.js';
export { ToolClient, type ToolCallInput, type ToolClientOptions } from './tool-client.js';
export { type ToolBatchInput, type ToolBatchOutcome, type ToolCallAnswer } from './tool-batch-client.js';
export {
  ToolCatalog,
  resolveOffers,
  type CatalogEntry,
  type ToolCatalogOptions,
  type ToolLookup,
} from './tool-catalog.js';
export { compareVersions } from './versions.js';
export {
  CallDedupe,
  IDEMPOTENCY_DEFAULTS,
  type IdempotencyOptions,
  type DedupeCall,
  type DedupeOutcome,
} from './call-dedupe.js';
export { DEDUPE_METADATA_KEY, REPLAYED_HEADER, readDedupeMetadata } from './dedupe-protocol.js';
export { mayRetryUnanswered, TRANSPORT_RETRY_DEFAULTS, type UnansweredKind } from './retry-policy.js';
export {
  defineAgent,
  AGENT_DEFAULTS,
  type AgentSpec,
  type AgentFieldSpec,
  type AgentDefinition,
  type AgentContext,
  type AgentApproval,
} from './define-agent.js';
export { runAgentStep, APPROVAL_NOTICE } from './agent-step.js';
export { handleAgentCall } from './handle-agent-call.js';
export { readApprovalReply, type ApprovalReply } from './approval-reply.js';
export {
  agentInputJsonSchema,
  agentSchemaVersion,
  agentToolDescription,
  APPROVAL_NOTE,
  TASK_INSTRUCTION_DESCRIPTION,
  type AgentField,
} from './agent-schema.js';
export { EXPOSE_METADATA_KEY, readExposeMetadata, agentEndpointMetadata } from './agent-metadata.js';
export { readAgentStepOutput } from './agent-client.js';
export { CredentialGrantIssuer, type GrantScope } from './credential-grant-issuer.js';
export {
  connectCredentialService,
  callCredentials,
  notConnectedMessage,
  CredentialAccessError,
  CredentialVersionConflict,
  type ToolCredentials,
  type CredentialLookup,
  type ConnectedCredential,
  type NotConnected,
  type SaveCredentialOptions,
  type CredentialAccessCode,
  type CredentialClientOptions,
  type CredentialRpc,
} from './tool-credentials.js';
