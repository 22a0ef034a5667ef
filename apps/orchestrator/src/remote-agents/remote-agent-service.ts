import { randomUUID } from 'node:crypto';
import { quotasFor, type TenantTiers } from '@platform/contracts';
import type { remoteAgentsV1 } from '@platform/proto';
import { unaryHandler, type Logger } from '@platform/service-kit';
import { resourceCallerOf, type ResourceCaller } from '../coded-error.js';
import { ErrorCodes } from '../error-codes.js';
import type { RemoteAgentClients, RemoteAgentCardSummary } from './remote-agent-card.js';
import { invalidRemoteAgent, remoteAgentError } from './remote-agent-errors.js';
import { RemoteAgentTokenError, type RemoteAgentTokens } from './remote-agent-tokens.js';
import {
  remoteAgentCredential,
  remoteAgentDescription,
  remoteAgentName,
  remoteAgentUrl,
} from './remote-agent-input.js';
import type { RemoteAgentInput, RemoteAgentRecord, RemoteAgentStore } from './remote-agent-store.js';

export interface RemoteAgentServiceDependencies {
  store: RemoteAgentStore;
  /** Fetches and validates a card (through the egress guard). */
  clients: Pick<RemoteAgentClients, 'inspect'>;
  /** Reads the named credential's token, for a card that needs it (as the platform's own cards do). */
  tokens: Pick<RemoteAgentTokens, 'tokenFor'>;
  tiers: TenantTiers;
  defaultTier: string;
  logger: Logger;
}

function cardMessage(card: RemoteAgentCardSummary): remoteAgentsV1.RemoteAgentCard {
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    skills: card.skills,
    protocolVersion: card.protocolVersion,
    transport: card.transport,
    streaming: card.streaming,
    fetchedAt: new Date(card.fetchedAt),
  };
}

function remoteAgentMessage(record: RemoteAgentRecord): remoteAgentsV1.RemoteAgent {
  return {
    name: record.name,
    url: record.url,
    description: record.description,
    credentialService: record.credentialService ?? '',
    credentialAccount: record.credentialAccount ?? '',
    card: cardMessage(record.card),
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    createdBy: record.createdBy,
  };
}

/**
 * The RemoteAgentService (proto/orchestrator/v1/remote_agents.proto): a tenant's remote A2A
 * agents. A write checks its fields, passes the URL through the egress guard and fetches the card
 * (which must be a valid A2A card with an interface the platform speaks) before anything is stored.
 */
export function remoteAgentServiceImplementation(
  deps: RemoteAgentServiceDependencies,
): remoteAgentsV1.RemoteAgentServiceServer {
  const { store, clients, logger } = deps;

  /** The tier's `remoteAgents` quota; 0 turns remote agents off (NOT_PERMITTED_BY_TIER). */
  const quotaOf = (caller: ResourceCaller) => {
    const { tier, quotas } = quotasFor(deps.tiers, caller.tier, deps.defaultTier);
    if (quotas.remoteAgents === 0)
      throw remoteAgentError(
        'permission_denied',
        ErrorCodes.NOT_PERMITTED_BY_TIER,
        `remote agents are not available to tier '${tier}'`,
        { details: { what: 'remoteAgents', tier } },
      );
    return { tier, max: quotas.remoteAgents };
  };

  /** The credential's token for fetching the card, read through a grant for this one check (audited as `remote_agent`). */
  const tokenOf = async (
    caller: ResourceCaller,
    credential: { credentialService?: string; credentialAccount?: string },
  ) => {
    if (!credential.credentialService) return undefined;
    try {
      return await deps.tokens.tokenFor(
        { tenantId: caller.tenantId, runId: `remote-agent-check:${randomUUID()}` },
        {
          service: credential.credentialService,
          ...(credential.credentialAccount ? { account: credential.credentialAccount } : {}),
        },
        Date.now() + 30_000,
      );
    } catch (err) {
      if (err instanceof RemoteAgentTokenError) throw invalidRemoteAgent('auth', err.message);
      throw err;
    }
  };

  const inputOf = async (
    caller: ResourceCaller,
    request: {
      url: string;
      description: string;
      credentialService: string;
      credentialAccount: string;
    },
  ): Promise<RemoteAgentInput> => {
    const url = remoteAgentUrl(request.url);
    const description = remoteAgentDescription(request.description);
    const credential = remoteAgentCredential(request.credentialService, request.credentialAccount);
    const card = await clients.inspect(url, await tokenOf(caller, credential));
    return { url, description, ...credential, card };
  };

  return {
    createRemoteAgent: unaryHandler(
      logger,
      'CreateRemoteAgent',
      async (request: remoteAgentsV1.CreateRemoteAgentRequest) => {
        const caller = resourceCallerOf(request.caller, deps.defaultTier);
        const quota = quotaOf(caller);
        const name = remoteAgentName(request.name);
        const input = await inputOf(caller, request);
        const record = await store.create(
          { tenantId: caller.tenantId, subject: caller.subject, tier: quota.tier, maxRemoteAgents: quota.max },
          name,
          input,
        );
        logger.info({ tenantId: caller.tenantId, remoteAgent: name }, 'remote agent registered');
        return { remoteAgent: remoteAgentMessage(record) };
      },
    ),

    getRemoteAgent: unaryHandler(logger, 'GetRemoteAgent', async (request: remoteAgentsV1.GetRemoteAgentRequest) => {
      const caller = resourceCallerOf(request.caller, deps.defaultTier);
      return { remoteAgent: remoteAgentMessage(await store.require(caller.tenantId, remoteAgentName(request.name))) };
    }),

    listRemoteAgents: unaryHandler(
      logger,
      'ListRemoteAgents',
      async (request: remoteAgentsV1.ListRemoteAgentsRequest) => {
        const caller = resourceCallerOf(request.caller, deps.defaultTier);
        return { remoteAgents: (await store.list(caller.tenantId)).map(remoteAgentMessage) };
      },
    ),

    updateRemoteAgent: unaryHandler(
      logger,
      'UpdateRemoteAgent',
      async (request: remoteAgentsV1.UpdateRemoteAgentRequest) => {
        const caller = resourceCallerOf(request.caller, deps.defaultTier);
        quotaOf(caller);
        const name = remoteAgentName(request.name);
        // A missing agent is answered before its card is fetched.
        await store.require(caller.tenantId, name);
        const input = await inputOf(caller, request);
        const record = await store.update(caller.tenantId, name, input, request.expectedVersion);
        return { remoteAgent: remoteAgentMessage(record) };
      },
    ),

    deleteRemoteAgent: unaryHandler(
      logger,
      'DeleteRemoteAgent',
      async (request: remoteAgentsV1.DeleteRemoteAgentRequest) => {
        const caller = resourceCallerOf(request.caller, deps.defaultTier);
        await store.remove(caller.tenantId, remoteAgentName(request.name));
        return {};
      },
    ),
  };
}
