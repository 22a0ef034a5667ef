import { ToolMetadataKey, toolEndpointMetadata } from '@platform/contracts';
import { DEDUPE_METADATA_KEY } from './dedupe-protocol.js';
import type { AgentToolDefinition } from './define-agent-tool.js';
import { schemaHash } from './json-schema.js';

/**
 * Endpoint metadata key (`"true"` / `"false"`) saying whether the tool should be offered to the
 * model. Absent means `"true"`. `"false"` keeps an agent-tool callable (explicit workflows,
 * triggers) but out of the model's tool list (`ToolMetadataKey.expose`); receivers that do not
 * know it ignore it, as protocol v1 requires.
 */
export const EXPOSE_METADATA_KEY = ToolMetadataKey.expose;

/** Whether an endpoint's metadata lets the model see the tool: anything but `"false"` means yes. */
export function readExposeMetadata(metadata: Record<string, string> | undefined): boolean {
  return metadata?.[EXPOSE_METADATA_KEY] !== 'false';
}

/** The discovery metadata of an agent-tool endpoint (kind `agent`, with its field schema version). */
export function agentEndpointMetadata(agent: AgentToolDefinition, dedupe: boolean): Record<string, string> {
  return {
    ...toolEndpointMetadata({
      kind: 'agent',
      description: agent.modelDescription,
      inputSchema: agent.inputJsonSchema,
      timeoutMs: agent.timeoutMs,
      requiresApproval: agent.approval !== false,
      sideEffect: agent.sideEffect,
      version: agent.version,
      schemaHash: schemaHash(agent.inputJsonSchema),
      agentSchemaVersion: agent.schemaVersion,
      ...(agent.credentials.length > 0 ? { credentials: [...agent.credentials] } : {}),
    }),
    [EXPOSE_METADATA_KEY]: String(agent.exposeToModel),
    ...(dedupe ? { [DEDUPE_METADATA_KEY]: 'true' } : {}),
  };
}
