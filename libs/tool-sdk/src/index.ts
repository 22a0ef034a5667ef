export { defineTool, TOOL_DEFAULTS, type ToolSpec, type ToolDefinition, type ToolContext } from './define-tool.js';
export { ToolFailure } from './tool-failure.js';
export { serveRunner, RUNNER_DEFAULTS, type RunnerOptions, type ToolRunner } from './serve-runner.js';
export { handleToolCall, type CallEnvironment } from './handle-call.js';
export { truncateOutput, TRUNCATION_MARKER } from './truncate-output.js';
export { inputJsonSchema, schemaHash } from './json-schema.js';
export { ToolClient, type ToolCallInput, type ToolClientOptions } from './tool-client.js';
export { ToolCatalog, resolveOffers, type CatalogEntry, type ToolCatalogOptions, type ToolLookup } from './tool-catalog.js';
export { compareVersions } from './versions.js';
