import { BUILT_IN_AGENT_PREFIX, ConversationId, quotasFor, type TenantTiers } from '@platform/contracts';
import type { agentsV1 } from '@platform/proto';
import { unaryHandler, type Logger } from '@platform/service-kit';
import { resourceCallerOf, type ResourceCaller } from '../coded-error.js';
import { ErrorCodes } from '../error-codes.js';
import type { ProfileRegistry } from '../profiles.js';
import type { AgentDirectory } from './agent-directory.js';
import { agentError, agentNotFound, builtInAgent, versionNotFound } from './agent-errors.js';
import { agentMessage, builtInMessage, pinMessage, versionMessage } from './agent-messages.js';
import type { AgentStore } from './agent-store.js';
import type { AgentWriter } from './agent-types.js';
import { parseAgentSpec, type AgentValidation } from './agent-validation.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

export interface AgentServiceDependencies {
  store: AgentStore;
  validation: AgentValidation;
  directory: Pick<AgentDirectory, 'announce'>;
  profiles: Pick<ProfileRegistry, 'resolve' | 'specOf' | 'names'>;
  tiers: TenantTiers;
  defaultTier: string;
  logger: Logger;
}

function pageSizeOf(size: number): number {
  if (size < 0 || size > MAX_PAGE_SIZE)
    throw agentError('invalid_argument', ErrorCodes.INVALID_PAGE_SIZE, `page_size must be 0-${MAX_PAGE_SIZE}`);
  return size || DEFAULT_PAGE_SIZE;
}

function isBuiltInRef(ref: string): boolean {
  return ref.startsWith(BUILT_IN_AGENT_PREFIX);
}

function conversationOf(id: string): string {
  if (!ConversationId.safeParse(id).success)
    throw agentError('invalid_argument', ErrorCodes.INVALID_CONVERSATION_ID, 'conversation_id is invalid');
  return id;
}

/** `key=value` label filters. */
function labelsOf(labels: string[]): [string, string][] {
  return labels.map((label) => {
    const at = label.indexOf('=');
    if (at < 1)
      throw agentError('invalid_argument', ErrorCodes.INVALID_AGENT, `label filter '${label}' is not key=value`);
    return [label.slice(0, at), label.slice(at + 1)];
  });
}

const encodeToken = (value: string): string => Buffer.from(JSON.stringify({ after: value })).toString('base64url');

function decodeToken(token: string): string | undefined {
  if (!token) return undefined;
  try {
    const { after } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof after === 'string') return after;
  } catch {
    // answered below
  }
  throw agentError('invalid_argument', ErrorCodes.INVALID_AGENT, 'page_token is not one this service gave');
}

/**
 * The AgentService (proto/orchestrator/v1/agents.proto): a tenant's agents, their immutable
 * versions, publication and rollback, and conversation pins; the built-in agents (the operator's
 * profiles) readable, never writable. Every write is announced to every replica after its commit.
 */
export function agentServiceImplementation(deps: AgentServiceDependencies): agentsV1.AgentServiceServer {
  const { store, validation, directory, profiles, logger } = deps;

  const writerOf = (caller: ResourceCaller): AgentWriter => {
    const { tier, quotas } = quotasFor(deps.tiers, caller.tier, deps.defaultTier);
    return { ...caller, tier, maxAgents: quotas.agents, maxVersions: quotas.agentVersions };
  };

  /** A built-in agent the caller may use, by `builtin:<name>` or name; undefined when none. */
  const builtIn = (caller: ResourceCaller, ref: string) => {
    const name = isBuiltInRef(ref) ? ref.slice(BUILT_IN_AGENT_PREFIX.length) : ref;
    const spec = profiles.specOf(name);
    return spec && profiles.resolve(name, caller) ? spec : undefined;
  };

  const refuseBuiltIn = (caller: ResourceCaller, ref: string): void => {
    if (isBuiltInRef(ref) || (!ref.startsWith('agt_') && builtIn(caller, ref))) throw builtInAgent(ref);
  };

  const tenantAgent = async (caller: ResourceCaller, ref: string) => {
    const agent = ref ? await store.find(caller.tenantId, ref) : undefined;
    if (!agent) throw agentNotFound(ref);
    return agent;
  };

  const written = <T>(caller: ResourceCaller, value: T): T => {
    directory.announce(caller.tenantId);
    return value;
  };

  return {
    createAgent: unaryHandler(logger, 'CreateAgent', async (request: agentsV1.CreateAgentRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      const spec = parseAgentSpec(request.specJson);
      await validation.check(caller, spec);
      const agent = await store.create(writerOf(caller), spec, request.draft);
      return written(caller, { agent: agentMessage(agent) });
    }),

    getAgent: unaryHandler(logger, 'GetAgent', async (request: agentsV1.GetAgentRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      const ref = request.agent;
      const tenant = ref && !isBuiltInRef(ref) ? await store.find(caller.tenantId, ref) : undefined;
      if (tenant) return { agent: agentMessage(tenant) };
      const spec = builtIn(caller, ref);
      if (!spec) throw agentNotFound(ref);
      return { agent: builtInMessage(spec) };
    }),

    listAgents: unaryHandler(logger, 'ListAgents', async (request: agentsV1.ListAgentsRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      const limit = pageSizeOf(request.pageSize);
      const token = decodeToken(request.pageToken);
      // "<name> <agent id>" of the previous page's last agent (names and ids hold no space).
      const after =
        token === undefined ? undefined : { name: token.split(' ')[0]!, agentId: token.split(' ')[1] ?? '' };
      const isAfter = (a: { name: string; agentId: string }): boolean =>
        !after || a.name > after.name || (a.name === after.name && a.agentId > after.agentId);
      const labels = labelsOf(request.labels);
      const search = request.search.toLowerCase();
      const tenantAgents = await store.list(caller.tenantId, {
        limit: limit + 1,
        ...(after !== undefined ? { after } : {}),
        ...(request.search ? { search: request.search } : {}),
        labels,
        includeDeleted: request.includeDeleted,
      });
      // Built-in agents have no labels or description: a label filter leaves them out.
      const builtIns = labels.length
        ? []
        : profiles
            .names()
            .filter((name) => !search || name.toLowerCase().includes(search))
            .map((name) => builtIn(caller, name))
            .filter((spec) => spec !== undefined)
            .map(builtInMessage)
            .filter(isAfter);
      const merged = [...tenantAgents.map(agentMessage), ...builtIns].sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : a.agentId < b.agentId ? -1 : 1,
      );
      const page = merged.slice(0, limit);
      return {
        agents: page,
        nextPageToken:
          merged.length > limit ? encodeToken(`${page[page.length - 1]!.name} ${page[page.length - 1]!.agentId}`) : '',
      };
    }),

    updateAgent: unaryHandler(logger, 'UpdateAgent', async (request: agentsV1.UpdateAgentRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      refuseBuiltIn(caller, request.agent);
      if (!request.ifMatch)
        throw agentError(
          'failed_precondition',
          ErrorCodes.PRECONDITION_REQUIRED,
          'an update needs if_match: the revision it was written against',
        );
      const spec = parseAgentSpec(request.specJson);
      await validation.check(caller, spec);
      const agent = await store.update(writerOf(caller), request.agent, spec, Number(request.ifMatch), request.draft);
      return written(caller, { agent: agentMessage(agent) });
    }),

    deleteAgent: unaryHandler(logger, 'DeleteAgent', async (request: agentsV1.DeleteAgentRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      refuseBuiltIn(caller, request.agent);
      const agent = await store.delete(caller.tenantId, request.agent, Number(request.ifMatch));
      return written(caller, { agent: agentMessage(agent) });
    }),

    listAgentVersions: unaryHandler(logger, 'ListAgentVersions', async (request: agentsV1.ListAgentVersionsRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      if (builtIn(caller, request.agent) && !request.agent.startsWith('agt_'))
        return { versions: [], nextPageToken: '' };
      const agent = await tenantAgent(caller, request.agent);
      const limit = pageSizeOf(request.pageSize);
      const after = decodeToken(request.pageToken);
      const below = after === undefined ? undefined : Number(after);
      if (below !== undefined && !Number.isInteger(below))
        throw agentError('invalid_argument', ErrorCodes.INVALID_AGENT, 'page_token is not one this service gave');
      const versions = await store.versions(caller.tenantId, agent.agentId, limit + 1, below);
      const page = versions.slice(0, limit);
      return {
        versions: page.map((v) => versionMessage(v, agent.activeVersion)),
        nextPageToken: versions.length > limit ? encodeToken(String(page[page.length - 1]!.version)) : '',
      };
    }),

    getAgentVersion: unaryHandler(logger, 'GetAgentVersion', async (request: agentsV1.GetAgentVersionRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      if (!request.agent.startsWith('agt_') && builtIn(caller, request.agent))
        throw versionNotFound(request.agent, request.version);
      const agent = await tenantAgent(caller, request.agent);
      const version = await store.version(caller.tenantId, agent.agentId, request.version);
      if (!version) throw versionNotFound(request.agent, request.version);
      return { version: versionMessage(version, agent.activeVersion) };
    }),

    publishAgentVersion: unaryHandler(
      logger,
      'PublishAgentVersion',
      async (request: agentsV1.PublishAgentVersionRequest) => {
        const caller = resourceCallerOf(request.caller, deps.defaultTier);
        refuseBuiltIn(caller, request.agent);
        const agent = await store.publish(writerOf(caller), request.agent, request.version, Number(request.ifMatch));
        return written(caller, { agent: agentMessage(agent) });
      },
    ),

    rollbackAgent: unaryHandler(logger, 'RollbackAgent', async (request: agentsV1.RollbackAgentRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      refuseBuiltIn(caller, request.agent);
      const agent = await store.rollback(writerOf(caller), request.agent, Number(request.ifMatch));
      return written(caller, { agent: agentMessage(agent) });
    }),

    pinConversation: unaryHandler(logger, 'PinConversation', async (request: agentsV1.PinConversationRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      const conversationId = conversationOf(request.conversationId);
      refuseBuiltIn(caller, request.agent);
      const agent = await tenantAgent(caller, request.agent);
      if (agent.deletedAt)
        throw agentError('failed_precondition', ErrorCodes.AGENT_DELETED, `the agent '${request.agent}' is deleted`);
      if (request.version < 0 || request.version > agent.latestVersion)
        throw versionNotFound(request.agent, request.version);
      const pin = await store.pin(caller.tenantId, conversationId, agent.agentId, request.version, caller.subject);
      return written(caller, { pin: pinMessage(pin) });
    }),

    getConversationPin: unaryHandler(
      logger,
      'GetConversationPin',
      async (request: agentsV1.GetConversationPinRequest) => {
        const caller = resourceCallerOf(request.caller, deps.defaultTier);
        const pin = await store.pinOf(caller.tenantId, conversationOf(request.conversationId));
        if (!pin)
          throw agentError(
            'not_found',
            ErrorCodes.CONVERSATION_NOT_PINNED,
            `the conversation '${request.conversationId}' has no agent pin`,
          );
        return { pin: pinMessage(pin) };
      },
    ),

    unpinConversation: unaryHandler(logger, 'UnpinConversation', async (request: agentsV1.UnpinConversationRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      const pin = await store.unpin(caller.tenantId, conversationOf(request.conversationId));
      if (!pin)
        throw agentError(
          'not_found',
          ErrorCodes.CONVERSATION_NOT_PINNED,
          `the conversation '${request.conversationId}' has no agent pin`,
        );
      return written(caller, { pin: pinMessage(pin) });
    }),
  };
}
