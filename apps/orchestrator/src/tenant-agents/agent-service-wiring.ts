import { agentsV1, remoteAgentsV1 } from '@platform/proto';
import type { TenantTiers } from '@platform/contracts';
import type { GrpcServer, Logger } from '@platform/service-kit';
import { AGENT_CALLERS, REMOTE_AGENT_CALLERS } from '../grpc-callers.js';
import type { OpenedRemoteAgents } from '../remote-agents/remote-agent-wiring.js';
import type { ProfileRegistry } from '../profiles.js';
import type { AgentDirectory } from './agent-directory.js';
import { agentServiceImplementation } from './agent-service.js';
import type { AgentStore } from './agent-store.js';
import { AgentValidation } from './agent-validation.js';
import type { ModelConnections } from './model-connections.js';

const AGENT_SERVICE_NAME = 'orchestrator.v1.AgentService';
const REMOTE_AGENT_SERVICE_NAME = 'orchestrator.v1.RemoteAgentService';

/** What the AgentService is built from in a running orchestrator (server.ts). */
export interface AgentServiceWiring {
  store: AgentStore;
  profiles: ProfileRegistry;
  directory: Pick<AgentDirectory, 'announce'>;
  tiers: TenantTiers;
  defaultTier: string;
  /** The tenant's model connections, when the orchestrator reaches the credential service. */
  modelConnections?: ModelConnections | undefined;
  /** Which names are the tenant's remote agents (remote-agents/). */
  remoteAgentNames?: (tenantId: string, names: string[]) => Promise<Set<string>>;
  logger: Logger;
}

/** The AgentService with its validation: names of live agents from the store, tier rules, model connections. */
function agentServiceOf(w: AgentServiceWiring): agentsV1.AgentServiceServer {
  return agentServiceImplementation({
    store: w.store,
    validation: new AgentValidation({
      profiles: w.profiles,
      liveNames: (tenantId, names) => w.store.liveNames(tenantId, names),
      tiers: w.tiers,
      defaultTier: w.defaultTier,
      ...(w.modelConnections ? { modelConnections: w.modelConnections } : {}),
      ...(w.remoteAgentNames ? { remoteAgentNames: w.remoteAgentNames } : {}),
    }),
    directory: w.directory,
    profiles: w.profiles,
    tiers: w.tiers,
    defaultTier: w.defaultTier,
    logger: w.logger,
  });
}

/** Adds the agents' gRPC services to the server: the AgentService and the RemoteAgentService. */
export function addAgentServices(
  grpc: GrpcServer,
  wiring: Omit<AgentServiceWiring, 'remoteAgentNames'>,
  remoteAgents: Pick<OpenedRemoteAgents, 'store' | 'service'>,
): void {
  grpc.addService(
    AGENT_SERVICE_NAME,
    agentsV1.AgentServiceService,
    agentServiceOf({ ...wiring, remoteAgentNames: (tenantId, names) => remoteAgents.store.existing(tenantId, names) }),
    AGENT_CALLERS,
  );
  grpc.addService(
    REMOTE_AGENT_SERVICE_NAME,
    remoteAgentsV1.RemoteAgentServiceService,
    remoteAgents.service,
    REMOTE_AGENT_CALLERS,
  );
}
