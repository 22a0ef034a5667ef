import type { AgentSpec } from '@platform/contracts';

/** A tenant agent as stored (agents table), with the spec of its active version (else its latest: only drafts). */
export interface AgentRecord {
  tenantId: string;
  agentId: string;
  name: string;
  revision: number;
  /** Null while only drafts exist. */
  activeVersion: number | null;
  latestVersion: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  createdBy: string;
  spec: AgentSpec;
}

/** One immutable version of an agent. */
export interface AgentVersionRecord {
  agentId: string;
  version: number;
  spec: AgentSpec;
  createdAt: Date;
  createdBy: string;
  publishedAt: Date | null;
}

/** A conversation's pin: one version, or 0 to follow the agent's active one. */
export interface ConversationPinRecord {
  conversationId: string;
  agentId: string;
  version: number;
  pinnedAt: Date;
  pinnedBy: string;
}

/** Who writes: the tenant, the end user recorded as author, and the quotas of its tier. */
export interface AgentWriter {
  tenantId: string;
  subject: string;
  /** The tier whose quotas apply (for QUOTA_EXCEEDED's details). */
  tier: string;
  maxAgents: number;
  maxVersions: number;
}

export const TENANT_AGENT_PREFIX = 'agt_';

export function isTenantAgentId(ref: string): boolean {
  return ref.startsWith(TENANT_AGENT_PREFIX);
}
