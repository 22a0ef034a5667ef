import type { agentsV1 } from '@platform/proto';
import type { TenantTiers } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { ProfileRegistry } from '../profiles.js';
import type { AgentDirectory } from './agent-directory.js';
import { agentServiceImplementation } from './agent-service.js';
import type { AgentStore } from './agent-store.js';
import { AgentValidation } from './agent-validation.js';
import type { ModelConnections } from './model-connections.js';

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
export function agentServiceOf(w: AgentServiceWiring): agentsV1.AgentServiceServer {
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
