import type { OpenAIChatModel } from '@platform/llm';
import type { GrpcTransport, Logger, NatsConnection } from '@platform/service-kit';
import type { Pool } from 'pg';
import type { OrchestratorConfig } from '../config.js';
import { openModelConnections, type OpenedModelConnections } from '../model-connections/open-model-connections.js';
import type { ProfileRegistry } from '../profiles.js';
import type { AgentCompileDefaults } from './agent-compile.js';
import { AgentDirectory } from './agent-directory.js';
import { AgentResolver } from './agent-resolver.js';
import { AgentStore } from './agent-store.js';

/** The built-in agents (the profiles file) and what a tenant agent's spec falls back to. */
export interface AgentSetup {
  profiles: ProfileRegistry;
  defaults: AgentCompileDefaults;
  modelFor: (name: string) => OpenAIChatModel;
}

/**
 * The agents a replica runs under: tenant agents stored in Postgres, looked up per replica and
 * invalidated over NATS, beside the built-in ones; and the tenants' own model endpoints
 * (docs/models.md, "Models the tenant brings"), absent without a CREDENTIAL_PLATFORM_TOKEN, and
 * then agents cannot name a connection.
 */
export async function wireAgents(
  config: OrchestratorConfig,
  deps: { pool: Pool; nc: NatsConnection; transport: GrpcTransport; logger: Logger },
  { profiles, defaults, modelFor }: AgentSetup,
): Promise<{
  agents: AgentResolver;
  store: AgentStore;
  directory: AgentDirectory;
  modelConnections: OpenedModelConnections | undefined;
}> {
  const modelConnections = openModelConnections(config, deps);
  await modelConnections?.ready;
  const store = new AgentStore(deps.pool);
  const directory = new AgentDirectory(store, deps.nc, deps.logger);
  const agents = new AgentResolver({
    profiles,
    directory,
    store,
    defaults,
    defaultTier: config.DEFAULT_TIER,
    modelFor,
    ...(modelConnections ? { modelConnections: modelConnections.connections } : {}),
  });
  return { agents, store, directory, modelConnections };
}
