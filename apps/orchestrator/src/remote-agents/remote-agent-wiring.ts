import { compileEgressAllowlist, EgressGuard } from '@platform/egress';
import { credentialV1, type remoteAgentsV1 } from '@platform/proto';
import { createGrpcClient, type GrpcTransport, type Logger } from '@platform/service-kit';
import type pg from 'pg';
import type { OrchestratorConfig } from '../config.js';
import type { CredentialGrants } from '../tool-gate/credential-grants.js';
import { RemoteAgentCall } from './remote-agent-call.js';
import { RemoteAgentClients } from './remote-agent-card.js';
import { remoteAgentServiceImplementation } from './remote-agent-service.js';
import { RemoteAgentStep } from './remote-agent-step.js';
import { RemoteAgentStore } from './remote-agent-store.js';
import { RemoteAgentTokens } from './remote-agent-tokens.js';
import { RemoteTasks } from './remote-tasks.js';

/** The replica's remote agents: their gRPC service, the turn step that calls them, and what they hold open. */
export interface OpenedRemoteAgents {
  store: RemoteAgentStore;
  service: remoteAgentsV1.RemoteAgentServiceServer;
  step: RemoteAgentStep;
  close(): Promise<void>;
}

/**
 * Wires remote A2A agents (docs/remote-agents.md): stored in the orchestrator's Postgres, reached
 * through this replica's egress guard (the operator's EGRESS_ALLOW_* lists apply), their tokens
 * read from the credential service with a grant per call.
 */
export function openRemoteAgents(
  config: OrchestratorConfig,
  deps: { pool: pg.Pool; transport: GrpcTransport; grants: CredentialGrants; logger: Logger },
): OpenedRemoteAgents {
  const egress = new EgressGuard({
    allowlist: compileEgressAllowlist(config),
    connectTimeoutMs: config.REMOTE_AGENT_CALL_TIMEOUT_MS,
  });
  const credential = createGrpcClient(
    credentialV1.CredentialServiceClient,
    credentialV1.CredentialServiceService,
    config.CREDENTIAL_ADDRESS,
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS, transport: deps.transport, server: 'credential' },
  );
  const store = new RemoteAgentStore(deps.pool);
  const clients = new RemoteAgentClients(egress, config.REMOTE_AGENT_CALL_TIMEOUT_MS);
  const tiers = { tiers: config.TENANT_TIERS, defaultTier: config.DEFAULT_TIER };
  const tokens = new RemoteAgentTokens(deps.grants, credential.rpc);
  const call = new RemoteAgentCall({
    store,
    tasks: new RemoteTasks(deps.pool),
    clients,
    tokens,
    tiers,
    pollMs: config.REMOTE_AGENT_POLL_MS,
    callTimeoutMs: config.REMOTE_AGENT_CALL_TIMEOUT_MS,
    logger: deps.logger,
  });
  return {
    store,
    service: remoteAgentServiceImplementation({ store, clients, tokens, ...tiers, logger: deps.logger }),
    step: new RemoteAgentStep(call),
    async close() {
      credential.close();
      await egress.close();
    },
  };
}
