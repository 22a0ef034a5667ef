import type { agentsV1 } from '@platform/proto';
import { z } from 'zod';
import { JsonObject, OptionalTimestamp } from '../openapi/common-schemas.js';

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

function specOf(specJson: string): Record<string, unknown> | null {
  return specJson ? (JSON.parse(specJson) as Record<string, unknown>) : null;
}

/** An agent as clients see it (docs/agents.md): the active version's spec and where its versions stand. */
export const Agent = z
  .object({
    id: z
      .string()
      .meta({ description: '`agt_<uuid>`, or `builtin:<name>` for a built-in agent (an operator profile).' }),
    name: z.string(),
    builtIn: z.boolean().meta({ description: 'An operator profile: readable, never writable (403 BUILT_IN_AGENT).' }),
    activeVersion: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The version new messages run under; null for a built-in agent or one with only a draft.' }),
    latestVersion: z.number().int().nullable().meta({ description: 'The newest version written, drafts included.' }),
    revision: z
      .number()
      .int()
      .meta({ description: 'Counts every write (a version, publish, rollback, delete); the ETag is `"<revision>"`.' }),
    createdAt: OptionalTimestamp,
    updatedAt: OptionalTimestamp,
    deletedAt: OptionalTimestamp.meta({
      description: 'Set once deleted: it answers no new messages (410 AGENT_DELETED).',
    }),
    createdBy: z.string().nullable().meta({ description: "The token's `sub` that created it." }),
    spec: JsonObject.nullable().meta({
      description:
        "The active version's spec (the AgentSpec of the request bodies, defaults filled in); null when none is active.",
    }),
  })
  .meta({ id: 'Agent' });
export type Agent = z.infer<typeof Agent>;

/** One immutable version of an agent. */
export const AgentVersion = z
  .object({
    agentId: z.string(),
    version: z.number().int().min(1),
    spec: JsonObject.meta({ description: 'The AgentSpec this version holds, defaults filled in.' }),
    createdAt: OptionalTimestamp,
    createdBy: z.string().nullable(),
    active: z.boolean().meta({ description: 'Whether new messages run under it now.' }),
    publishedAt: OptionalTimestamp.meta({
      description: 'When it was last made active; null for a draft never published.',
    }),
  })
  .meta({ id: 'AgentVersion' });
export type AgentVersion = z.infer<typeof AgentVersion>;

/** A conversation's pin: the agent (and version) its messages run under whatever they name. */
export const ConversationPin = z
  .object({
    conversationId: z.string(),
    agentId: z.string(),
    version: z
      .number()
      .int()
      .min(1)
      .nullable()
      .meta({ description: "The pinned version; null: the agent's active version, whichever it is." }),
    pinnedAt: OptionalTimestamp,
    pinnedBy: z.string().nullable(),
  })
  .meta({ id: 'ConversationPin' });

export function agentBody(agent: agentsV1.Agent): Agent {
  return {
    id: agent.agentId,
    name: agent.name,
    builtIn: agent.builtIn,
    activeVersion: agent.activeVersion || null,
    latestVersion: agent.latestVersion || null,
    revision: agent.revision,
    createdAt: iso(agent.createdAt),
    updatedAt: iso(agent.updatedAt),
    deletedAt: iso(agent.deletedAt),
    createdBy: agent.createdBy || null,
    spec: specOf(agent.specJson),
  };
}

export function versionBody(version: agentsV1.AgentVersion): AgentVersion {
  return {
    agentId: version.agentId,
    version: version.version,
    spec: specOf(version.specJson) ?? {},
    createdAt: iso(version.createdAt),
    createdBy: version.createdBy || null,
    active: version.active,
    publishedAt: iso(version.publishedAt),
  };
}

export function pinBody(pin: agentsV1.ConversationPin): z.infer<typeof ConversationPin> {
  return {
    conversationId: pin.conversationId,
    agentId: pin.agentId,
    version: pin.version || null,
    pinnedAt: iso(pin.pinnedAt),
    pinnedBy: pin.pinnedBy || null,
  };
}

/** The message's `agent: { id, version }` of a run (null: an orchestrator that does not say). */
export const RunAgent = z
  .object({
    id: z.string(),
    version: z.number().int().nullable().meta({ description: 'The version it runs under; null for a built-in agent.' }),
  })
  .nullable()
  .meta({ description: 'The agent and version the run runs under (docs/agents.md).' });

export function runAgentOf(agentId: string, version: number): z.infer<typeof RunAgent> {
  return agentId ? { id: agentId, version: version || null } : null;
}

export const SPEC_EXAMPLE = {
  name: 'support-bot',
  description: 'Answers billing questions',
  labels: { team: 'billing' },
  instructions: 'You are the billing desk of Acme. Be brief.',
  model: 'gpt-4o-mini',
  tools: ['search_*', 'calculator'],
};
const FILLED_SPEC_EXAMPLE = {
  ...SPEC_EXAMPLE,
  structuredOutput: true,
  delegates: [],
  strategy: 'react',
  committees: [],
};
export const AGENT_EXAMPLE: Agent = {
  id: 'agt_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
  name: 'support-bot',
  builtIn: false,
  activeVersion: 2,
  latestVersion: 3,
  revision: 4,
  createdAt: '2026-06-01T09:30:00.000Z',
  updatedAt: '2026-06-02T10:00:00.000Z',
  deletedAt: null,
  createdBy: 'alice',
  spec: FILLED_SPEC_EXAMPLE,
};
export const VERSION_EXAMPLE: AgentVersion = {
  agentId: AGENT_EXAMPLE.id,
  version: 2,
  spec: FILLED_SPEC_EXAMPLE,
  createdAt: '2026-06-02T10:00:00.000Z',
  createdBy: 'alice',
  active: true,
  publishedAt: '2026-06-02T10:00:00.000Z',
};
