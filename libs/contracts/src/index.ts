export { TenantId, ConversationId, RunId, ToolCallId, ToolName, ID_PATTERN, TOOL_CALL_ID_PATTERN } from './ids.js';
export { compositeKey } from './key-encoding.js';
export { ToolResultStatus } from './tool-result-status.js';
export {
  MEMORY_CONTEXT_OPEN,
  MEMORY_CONTEXT_CLOSE,
  renderMemoryContext,
  memoryContextItems,
} from './memory-context.js';
export { ToolCall, AssistantMessage, ToolMessage, ChatMessage } from './chat-message.js';
export {
  TOOL_PROTOCOL_VERSION,
  TOOL_SUBJECT_PREFIX,
  TOOL_QUEUE_GROUP,
  toolSubject,
  ToolCallHeader,
  ToolCallMeta,
  ToolCallRequest,
  ToolErrorCode,
  ToolIssue,
  ToolCallResponse,
  SideEffect,
  ToolMetadataKey,
  ToolReplyHeader,
  ToolDescriptor,
  parseToolDescriptor,
  toolEndpointMetadata,
} from './tool-protocol.js';
export { toolErrorCatalogue } from './tool-error-codes.js';
export { toolResultCodeCatalogue } from './tool-result-codes.js';
export {
  TOOL_BATCH_SUBJECT_SUFFIX,
  toolBatchSubject,
  ToolBatchCall,
  ToolBatchRequest,
  ToolBatchResult,
  ToolBatchReply,
} from './tool-batch.js';
export {
  TASK_INSTRUCTION_PARAMETER,
  ApprovalDecision,
  AgentStepInput,
  AgentCallRequest,
  ApprovalRequest,
  MissingField,
  AgentStepOutput,
  USER_CANCELLED_MESSAGE,
  RESUMED_CALL_ID_SUFFIX,
  resumedCallId,
} from './agent-protocol.js';
export {
  RUN_EVENTS_STREAM,
  RUN_EVENTS_SUBJECT_PREFIX,
  SUBJECT_SAFE_RUN_ID,
  runEventsSubject,
  RUN_ENDED_SUBJECT_PREFIX,
  runEndedSubject,
  RunEnded,
  RunEventType,
  RunEventEnvelope,
} from './run-events.js';
export {
  AGENT_POOL_EVENT_SUBJECT_PREFIX,
  AGENT_POOL_EVENTS_STREAM,
  agentPoolEventSubject,
  AgentExpiryReason,
  AgentExpiredEvent,
} from './agent-pool-events.js';
export {
  TRIGGER_EVENT_SUBJECT_PREFIX,
  TRIGGER_EVENTS_STREAM,
  TRIGGERED_RUN_SUBJECT_PREFIX,
  TRIGGERED_RUNS_STREAM,
  triggeredRunSubject,
  TriggeredRunFinished,
  triggerEventSubject,
  ExternalEvent,
  PublishedExternalEvent,
} from './trigger-events.js';
export { cutText, shortenText } from './text.js';
export {
  firstInvalidUtf8Offset,
  incompleteUtf8Tail,
  findUnstorableText,
  repairLoneSurrogates,
  type UnstorableText,
} from './well-formed-text.js';
export { findInexactNumber } from './exact-json-numbers.js';
export {
  CredentialService,
  CredentialAccount,
  DEFAULT_CREDENTIAL_ACCOUNT,
  CREDENTIAL_GRANT_ISSUER,
  CREDENTIAL_GRANT_AUDIENCE,
  CredentialGrantClaims,
} from './credentials.js';
export {
  MEMORY_INGEST_STREAM,
  MEMORY_INGEST_SUBJECT_PREFIX,
  MEMORY_DEAD_LETTER_STREAM,
  MEMORY_DEAD_LETTER_SUBJECT_PREFIX,
  memoryIngestSubject,
  memoryDeadLetterSubject,
  memoryIngestMessageId,
  COLLECTION_PATTERN,
  CollectionName,
  IngestedMessage,
  TurnFinished,
  MemoryDeadLetterReason,
  MemoryDeadLetter,
} from './memory-ingestion.js';
export {
  ScheduleTrigger,
  ConditionTrigger,
  TriggerSpec,
  MisfirePolicy,
  TaskSpec,
  ORCHESTRATOR_EXECUTOR,
} from './task-spec.js';
export { natsInboxPrefix } from './nats-inbox.js';
export { TenantTiers, TenantTiersEnv, QUOTA_NAMES, limitsFor, quotasFor, type TierQuotas } from './tenant-tiers.js';
export { NamedError } from './named-error.js';
export { API_KEY_REVOKED_SUBJECT, ApiKeyRevoked } from './api-keys.js';
export { TENANT_ROLES, TenantRole, roleAtLeast, highestTenantRole } from './tenant-roles.js';
export { approvalRefusal, type ApprovalRefusal } from './approval-deciders.js';
export { CONVERSATION_LIMITS, CONVERSATION_LABEL_PATTERN } from './conversation-limits.js';
export {
  AgentName,
  AGENTS_CHANGED_SUBJECT_PREFIX,
  AgentId,
  BUILT_IN_AGENT_PREFIX,
  DelegateSpec,
  CommitteeSpec,
  PlanningSpec,
  OutputSchema,
  AgentSpec,
  RunOverrides,
} from './agent-spec.js';
export { MultitaskPolicy } from './multitask.js';
export { RunProtocol } from './run-protocols.js';
export { finishedRunStatus } from './run-status.js';
export {
  ModelConnectionName,
  ModelConnectionModel,
  MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX,
  modelConnectionChangedSubject,
  ModelConnectionChanged,
} from './model-connections.js';
export { RemoteAgentName, RemoteAgentAuth, remoteRunAgentId, remoteAgentOfRun } from './remote-agents.js';
