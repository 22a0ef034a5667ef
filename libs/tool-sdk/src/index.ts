export { defineTool, type ToolDefinition, type ToolContext } from './define-tool.js';
export { ToolFailure } from './tool-failure.js';
export { serveRunner, RUNNER_DEFAULTS, type ToolRunner } from './serve-runner.js';
export { handleToolCall } from './handle-call.js';
export { truncateOutput } from './truncate-output.js';
export { ToolClient, type ToolCallInput } from './tool-client.js';
export { type ToolCallAnswer } from './tool-batch-client.js';
export { ToolCatalog, type CatalogEntry, type ToolLookup } from './tool-catalog.js';
export { REPLAYED_HEADER } from './dedupe-protocol.js';
export { defineAgentTool, type AgentToolDefinition } from './define-agent-tool.js';
export { readApprovalReply } from './approval-reply.js';
export { readAgentStepOutput } from './agent-client.js';
export { CredentialGrantIssuer, type GrantScope } from './credential-grant-issuer.js';
export { callCredentials, CredentialVersionConflict } from './tool-credentials.js';

// For runner authors outside this repository (docs/tool-runners.md, docs/credentials.md): the types
// their specs and tests are written with, and the error a credential call throws. No package here
// needs them, hence the `@public` tags that keep knip from reporting them.
/** @public */
export { runAgentStep } from './agent-step.js';
/** @public */
export type { ToolSpec } from './define-tool.js';
/** @public */
export type { AgentToolSpec, AgentToolContext } from './define-agent-tool.js';
/** @public */
export type { RunnerOptions } from './serve-runner.js';
/** @public */
export { CredentialAccessError, type CredentialAccessCode, type ToolCredentials } from './tool-credentials.js';
