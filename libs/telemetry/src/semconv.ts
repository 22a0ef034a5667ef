// OpenTelemetry semantic-convention names this library writes. Spelled out here because the main
// entry depends on @opentelemetry/api only; semconv.test.ts checks them against
// @opentelemetry/semantic-conventions so a typo or rename cannot slip through.

/** Instrumentation scope of the spans this library's helpers create. */
export const TRACER_NAME = '@platform/telemetry';

export const ATTR = {
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  // Messaging. `messaging.system` is deprecated in favour of `messaging.system.name`; both are set
  // while backends migrate.
  messagingSystem: 'messaging.system',
  messagingSystemName: 'messaging.system.name',
  messagingDestinationName: 'messaging.destination.name',
  messagingOperationName: 'messaging.operation.name',
  messagingOperationType: 'messaging.operation.type',
  messagingConsumerGroupName: 'messaging.consumer.group.name',
  messagingMessageBodySize: 'messaging.message.body.size',
  messagingBatchMessageCount: 'messaging.batch.message_count',
  // GenAI. `gen_ai.system` is deprecated in favour of `gen_ai.provider.name`; both are set.
  genAiOperationName: 'gen_ai.operation.name',
  genAiSystem: 'gen_ai.system',
  genAiProviderName: 'gen_ai.provider.name',
  genAiRequestModel: 'gen_ai.request.model',
  genAiRequestMaxTokens: 'gen_ai.request.max_tokens',
  genAiRequestTemperature: 'gen_ai.request.temperature',
  genAiResponseModel: 'gen_ai.response.model',
  genAiResponseId: 'gen_ai.response.id',
  genAiResponseFinishReasons: 'gen_ai.response.finish_reasons',
  genAiUsageInputTokens: 'gen_ai.usage.input_tokens',
  genAiUsageOutputTokens: 'gen_ai.usage.output_tokens',
  genAiToolName: 'gen_ai.tool.name',
  genAiToolCallId: 'gen_ai.tool.call.id',
  genAiToolType: 'gen_ai.tool.type',
  genAiTokenType: 'gen_ai.token.type',
} as const;

export const VALUE = {
  messagingSystemNats: 'nats',
  messagingOperationTypeSend: 'send',
  messagingOperationTypeProcess: 'process',
  genAiOperationChat: 'chat',
  genAiOperationExecuteTool: 'execute_tool',
  genAiTokenTypeInput: 'input',
  genAiTokenTypeOutput: 'output',
} as const;

/** Instrumentation scope of the metrics this library's helpers record. */
export const METER_NAME = '@platform/telemetry';

/** Metric names from the conventions. */
export const METRIC = {
  genAiClientOperationDuration: 'gen_ai.client.operation.duration',
  genAiClientTokenUsage: 'gen_ai.client.token.usage',
} as const;

/** The platform's own metric and attribute names (not in the conventions; namespaced `platform.`). */
export const PLATFORM = {
  toolDurationMetric: 'platform.tool.duration',
  turnDurationMetric: 'platform.turn.duration',
  toolStatus: 'platform.tool.status',
  profile: 'platform.profile',
  runStatus: 'platform.run.status',
  stopReason: 'platform.stop_reason',
  consumerLagMetric: 'platform.consumer.lag',
  consumer: 'platform.consumer',
  memoryIngestDurationMetric: 'platform.memory.ingest.duration',
  memoryIngestOutcome: 'platform.memory.ingest.outcome',
  /** The orchestrator's recalls in flight to memory and their adaptive limit (`kind`: limit, in_flight). */
  memoryRecallConcurrencyMetric: 'platform.memory.recall.concurrency',
  memoryRecallConcurrencyKind: 'platform.memory.recall.concurrency.kind',
  tenantTokenUsageMetric: 'platform.tenant.token.usage',
  tenant: 'platform.tenant',
  fireLagMetric: 'platform.trigger.fire.lag',
  fireKind: 'platform.trigger.fire.kind',
  fireAttempt: 'platform.trigger.fire.attempt',
  fireId: 'platform.trigger.fire.id',
  taskId: 'platform.trigger.task.id',
  agentPoolEntriesMetric: 'platform.agent_pool.entries',
  agentPoolApprovalsExpiringMetric: 'platform.agent_pool.approvals.expiring',
  agentStatus: 'platform.agent.status',
  /** Failures of plans and teams, by seed 003's failure class, kind, severity and the recovery applied. */
  failuresMetric: 'platform.failures',
  failureClass: 'platform.failure.class',
  failureKind: 'platform.failure.kind',
  failureSeverity: 'platform.failure.severity',
  failureRecovery: 'platform.failure.recovery',
  /** Requests refused because a tenant reached a quota (QUOTA_EXCEEDED), by quota and tier. */
  quotaRefusalsMetric: 'platform.quota.refusals',
  /** Event streams open on this api replica (the concurrent_streams quota counts them across replicas). */
  openStreamsMetric: 'platform.api.streams.open',
  quota: 'platform.quota',
  tier: 'platform.tier',
} as const;
