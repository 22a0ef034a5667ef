import { randomUUID } from 'node:crypto';
import { AgentSpec } from '@platform/contracts';
import type { agentsV1 } from '@platform/proto';
import { PlatformError, type ErrorKind } from '@platform/service-kit';

// A test implementation of the orchestrator's AgentService (proto/orchestrator/v1/agents.proto)
// for the api's route tests, served behind a real gRPC server (agent-edge-app.ts): tenants scoped
// as the contract says, errors with the contract's codes (message first). The real one, with its
// database, NATS cache and tier rules, has its own suite in apps/orchestrator.

/** The tier whose tenants may define one agent, of model `gpt-4o-mini` only (the tier rules, in small). */
export const SMALL_TIER = 'small';
const BUILT_IN: agentsV1.Agent = {
  agentId: 'builtin:default',
  name: 'default',
  builtIn: true,
  activeVersion: 0,
  latestVersion: 0,
  revision: 1,
  specJson: JSON.stringify(AgentSpec.parse({ name: 'default', instructions: 'You are a helpful assistant.' })),
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
  deletedAt: undefined,
  createdBy: '',
};

interface StoredAgent {
  tenantId: string;
  agent: agentsV1.Agent;
  versions: agentsV1.AgentVersion[];
  /** Versions active before the current one, oldest first (what rollback goes back to). */
  history: number[];
}

const fail = (kind: ErrorKind, code: string, message: string, details?: Record<string, unknown>): never => {
  throw new PlatformError(kind, code, `${code}: ${message}`, details ? { details } : {});
};

export class InMemoryAgents {
  private readonly agents: StoredAgent[] = [];
  private readonly pins = new Map<string, agentsV1.ConversationPin>();

  private find(caller: agentsV1.AgentCaller | undefined, ref: string): StoredAgent | agentsV1.Agent {
    const found = this.agents.find(
      (a) => a.tenantId === caller?.tenantId && (a.agent.agentId === ref || a.agent.name === ref),
    );
    if (found) return found;
    if (ref === BUILT_IN.agentId || ref === BUILT_IN.name) return BUILT_IN;
    return fail('not_found', 'AGENT_NOT_FOUND', `no agent '${ref}'`);
  }

  private writable(caller: agentsV1.AgentCaller | undefined, ref: string, ifMatch: number): StoredAgent {
    const found = this.find(caller, ref);
    if (!('versions' in found))
      return fail('permission_denied', 'BUILT_IN_AGENT', `'${ref}' is a built-in agent: read-only`);
    if (ifMatch && ifMatch !== found.agent.revision)
      fail('failed_precondition', 'STALE_REVISION', `revision ${ifMatch} is not the current ${found.agent.revision}`);
    return found;
  }

  private parse(caller: agentsV1.AgentCaller | undefined, specJson: string): AgentSpec {
    const spec = AgentSpec.parse(JSON.parse(specJson));
    if (caller?.tier === SMALL_TIER && spec.model !== undefined && spec.model !== 'gpt-4o-mini')
      fail('permission_denied', 'NOT_PERMITTED_BY_TIER', `model '${spec.model}' is not allowed for this tier`, {
        field: 'model',
      });
    return spec;
  }

  private addVersion(stored: StoredAgent, spec: AgentSpec, subject: string, draft: boolean): void {
    const now = new Date();
    const version = stored.agent.latestVersion + 1;
    stored.versions.unshift({
      agentId: stored.agent.agentId,
      version,
      specJson: JSON.stringify(spec),
      createdAt: now,
      createdBy: subject,
      active: false,
      publishedAt: undefined,
    });
    stored.agent.latestVersion = version;
    stored.agent.name = spec.name;
    stored.agent.revision += 1;
    stored.agent.updatedAt = now;
    if (!draft) this.activate(stored, version);
  }

  private activate(stored: StoredAgent, version: number): void {
    if (stored.agent.activeVersion) stored.history.push(stored.agent.activeVersion);
    stored.agent.activeVersion = version;
    for (const v of stored.versions) {
      v.active = v.version === version;
      if (v.active) v.publishedAt = new Date();
    }
    stored.agent.specJson = stored.versions.find((v) => v.version === version)!.specJson;
  }

  readonly service = {
    createAgent: async ({ caller, specJson, draft }: agentsV1.CreateAgentRequest) => {
      const spec = this.parse(caller, specJson);
      const own = this.agents.filter((a) => a.tenantId === caller?.tenantId);
      if (own.some((a) => a.agent.name === spec.name && !a.agent.deletedAt))
        fail('already_exists', 'AGENT_NAME_TAKEN', `an agent named '${spec.name}' exists`);
      if (caller?.tier === SMALL_TIER && own.length >= 1)
        fail('resource_exhausted', 'QUOTA_EXCEEDED', 'the agents quota (1) is used up', { quota: 'agents', limit: 1 });
      const now = new Date();
      const stored: StoredAgent = {
        tenantId: caller!.tenantId,
        agent: {
          agentId: `agt_${randomUUID()}`,
          name: spec.name,
          builtIn: false,
          activeVersion: 0,
          latestVersion: 0,
          revision: 0,
          specJson: '',
          createdAt: now,
          updatedAt: now,
          deletedAt: undefined,
          createdBy: caller!.subject,
        },
        versions: [],
        history: [],
      };
      this.addVersion(stored, spec, caller!.subject, draft);
      this.agents.push(stored);
      return { agent: stored.agent };
    },
    getAgent: async ({ caller, agent }: agentsV1.GetAgentRequest) => {
      const found = this.find(caller, agent);
      return { agent: 'versions' in found ? found.agent : found };
    },
    listAgents: async (request: agentsV1.ListAgentsRequest) => {
      const offset = request.pageToken ? Number(request.pageToken) : 0;
      if (!Number.isInteger(offset) || offset < 0) fail('invalid_argument', 'INVALID_PAGE_TOKEN', 'not a page token');
      const matching = [
        BUILT_IN,
        ...this.agents.filter((a) => a.tenantId === request.caller?.tenantId).map((a) => a.agent),
      ].filter((agent) => {
        const spec = JSON.parse(agent.specJson || '{}') as { labels?: Record<string, string> };
        if (agent.deletedAt && !request.includeDeleted) return false;
        if (request.search && !agent.name.toLowerCase().includes(request.search.toLowerCase())) return false;
        return request.labels.every((label) => {
          const [key, value] = label.split('=', 2);
          return spec.labels?.[key!] === value;
        });
      });
      const size = request.pageSize || 50;
      const page = matching.slice(offset, offset + size);
      return { agents: page, nextPageToken: offset + size < matching.length ? String(offset + size) : '' };
    },
    updateAgent: async ({ caller, agent, specJson, ifMatch, draft }: agentsV1.UpdateAgentRequest) => {
      const stored = this.writable(caller, agent, ifMatch);
      if (!ifMatch) fail('failed_precondition', 'STALE_REVISION', 'an update names the revision it read');
      if (stored.agent.deletedAt) fail('failed_precondition', 'AGENT_DELETED', `'${agent}' is deleted`);
      this.addVersion(stored, this.parse(caller, specJson), caller!.subject, draft);
      return { agent: stored.agent };
    },
    deleteAgent: async ({ caller, agent, ifMatch }: agentsV1.DeleteAgentRequest) => {
      const stored = this.writable(caller, agent, ifMatch);
      stored.agent.deletedAt = new Date();
      stored.agent.revision += 1;
      return { agent: stored.agent };
    },
    listAgentVersions: async ({ caller, agent }: agentsV1.ListAgentVersionsRequest) => {
      const found = this.find(caller, agent);
      return { versions: 'versions' in found ? found.versions : [], nextPageToken: '' };
    },
    getAgentVersion: async ({ caller, agent, version }: agentsV1.GetAgentVersionRequest) => {
      const found = this.find(caller, agent);
      const stored = 'versions' in found ? found.versions.find((v) => v.version === version) : undefined;
      return {
        version: stored ?? fail('not_found', 'AGENT_VERSION_NOT_FOUND', `'${agent}' has no version ${version}`),
      };
    },
    publishAgentVersion: async ({ caller, agent, version, ifMatch }: agentsV1.PublishAgentVersionRequest) => {
      const stored = this.writable(caller, agent, ifMatch);
      if (!stored.versions.some((v) => v.version === version))
        fail('not_found', 'AGENT_VERSION_NOT_FOUND', `'${agent}' has no version ${version}`);
      this.activate(stored, version);
      stored.agent.revision += 1;
      return { agent: stored.agent };
    },
    rollbackAgent: async ({ caller, agent, ifMatch }: agentsV1.RollbackAgentRequest) => {
      const stored = this.writable(caller, agent, ifMatch);
      const previous = stored.history.pop();
      if (previous === undefined)
        return fail('failed_precondition', 'NOTHING_TO_ROLL_BACK', `'${agent}' had no version active before this one`);
      this.activate(stored, previous);
      stored.history.pop(); // activate recorded the version rolled back from: it is not one to go back to
      stored.agent.revision += 1;
      return { agent: stored.agent };
    },
    pinConversation: async ({ caller, conversationId, agent, version }: agentsV1.PinConversationRequest) => {
      const found = this.find(caller, agent);
      const agentId = 'versions' in found ? found.agent.agentId : found.agentId;
      if (version && !('versions' in found && found.versions.some((v) => v.version === version)))
        fail('not_found', 'AGENT_VERSION_NOT_FOUND', `'${agent}' has no version ${version}`);
      const pin = { conversationId, agentId, version, pinnedAt: new Date(), pinnedBy: caller!.subject };
      this.pins.set(`${caller!.tenantId}/${conversationId}`, pin);
      return { pin };
    },
    getConversationPin: async ({ caller, conversationId }: agentsV1.GetConversationPinRequest) => {
      const pin = this.pins.get(`${caller!.tenantId}/${conversationId}`);
      // Any NOT_FOUND code: the api answers PIN_NOT_FOUND whatever the service calls it.
      return { pin: pin ?? fail('not_found', 'CONVERSATION_NOT_PINNED', `'${conversationId}' has no pin`) };
    },
    unpinConversation: async ({ caller, conversationId }: agentsV1.UnpinConversationRequest) => {
      const key = `${caller!.tenantId}/${conversationId}`;
      const pin = this.pins.get(key) ?? fail('not_found', 'CONVERSATION_NOT_PINNED', `'${conversationId}' has no pin`);
      this.pins.delete(key);
      return { pin };
    },
  };
}
