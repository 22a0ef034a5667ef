// Hand-written entry for the gRPC contracts generated from proto/ by `buf generate` (see buf.gen.yaml).
// The generated code under ./gen is not committed; `nx run proto:generate` recreates it.
export * as memoryV1 from './gen/memory/v1/memory.js';
export * as orchestratorV1 from './gen/orchestrator/v1/orchestrator.js';
export * as agentsV1 from './gen/orchestrator/v1/agents.js';
export * as conversationsV1 from './gen/orchestrator/v1/conversations.js';
export * as erasureV1 from './gen/orchestrator/v1/erasure.js';
export * as remoteAgentsV1 from './gen/orchestrator/v1/remote_agents.js';
export * as agentPoolV1 from './gen/agentpool/v1/agent_pool.js';
export { approvalRequestOf } from './approval-request.js';
export * as credentialV1 from './gen/credential/v1/credential.js';
export * as triggerV1 from './gen/trigger/v1/trigger.js';
