import { BUILT_IN_AGENT_PREFIX } from '@platform/contracts';
import type { agentsV1 } from '@platform/proto';
import type { AgentProfileSpec } from '../profiles.js';
import type { AgentRecord, AgentVersionRecord, ConversationPinRecord } from './agent-types.js';

/** A tenant agent as AgentService answers it. */
export function agentMessage(agent: AgentRecord): agentsV1.Agent {
  return {
    agentId: agent.agentId,
    name: agent.name,
    builtIn: false,
    activeVersion: agent.activeVersion ?? 0,
    latestVersion: agent.latestVersion,
    revision: agent.revision,
    specJson: JSON.stringify(agent.spec),
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
    deletedAt: agent.deletedAt ?? undefined,
    createdBy: agent.createdBy,
  };
}

/**
 * A built-in agent (a profile of the operator's file) in the shape of a tenant agent's spec. Its
 * `access.tenants` is left out: other tenants' ids are not a tenant's to read.
 */
function builtInSpec(spec: AgentProfileSpec): Record<string, unknown> {
  const tiers = spec.access?.tiers;
  return {
    name: spec.name,
    description: '',
    labels: {},
    instructions: spec.systemPrompt,
    ...(spec.model ? { model: spec.model } : {}),
    ...(spec.fallbackModels ? { fallbackModels: spec.fallbackModels } : {}),
    ...(spec.toolProtocol ? { toolProtocol: spec.toolProtocol } : {}),
    structuredOutput: spec.structuredOutput,
    tools: spec.tools,
    delegates: spec.delegates,
    strategy: spec.strategy,
    ...(spec.planning ? { planning: spec.planning } : {}),
    committees: spec.committees,
    ...(spec.loop ? { loop: spec.loop } : {}),
    ...(tiers ? { access: { tiers } } : {}),
  };
}

export function builtInMessage(spec: AgentProfileSpec): agentsV1.Agent {
  return {
    agentId: `${BUILT_IN_AGENT_PREFIX}${spec.name}`,
    name: spec.name,
    builtIn: true,
    activeVersion: 0,
    latestVersion: 0,
    revision: 0,
    specJson: JSON.stringify(builtInSpec(spec)),
    createdAt: undefined,
    updatedAt: undefined,
    deletedAt: undefined,
    createdBy: 'operator',
  };
}

export function versionMessage(version: AgentVersionRecord, activeVersion: number | null): agentsV1.AgentVersion {
  return {
    agentId: version.agentId,
    version: version.version,
    specJson: JSON.stringify(version.spec),
    createdAt: version.createdAt,
    createdBy: version.createdBy,
    active: version.version === activeVersion,
    publishedAt: version.publishedAt ?? undefined,
  };
}

export function pinMessage(pin: ConversationPinRecord): agentsV1.ConversationPin {
  return { ...pin };
}
