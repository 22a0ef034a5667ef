import { compileEgressAllowlist, EgressGuard } from '@platform/egress';
import { credentialV1 } from '@platform/proto';
import { createGrpcClient, type GrpcTransport, type Logger, type NatsConnection } from '@platform/service-kit';
import type { OrchestratorConfig } from '../config.js';
import { ConnectionCache } from './connection-cache.js';
import { CredentialModelConnections } from './credential-model-connections.js';
import type { ModelConnections } from './model-connections.js';

/** The replica's model connections and what they hold open (a gRPC client, a NATS subscription, the egress pool). */
export interface OpenedModelConnections {
  connections: ModelConnections;
  /** Resolves once the change notices are subscribed (a notice sent after it is heard). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the model connections port when the orchestrator has a credential service token
 * (CREDENTIAL_PLATFORM_TOKEN); without one there is none, and agents cannot name a connection.
 */
export function openModelConnections(
  config: OrchestratorConfig,
  deps: { nc: NatsConnection; transport: GrpcTransport; logger: Logger },
): OpenedModelConnections | undefined {
  if (!config.CREDENTIAL_PLATFORM_TOKEN) return undefined;
  const client = createGrpcClient(
    credentialV1.CredentialServiceClient,
    credentialV1.CredentialServiceService,
    config.CREDENTIAL_ADDRESS,
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS, transport: deps.transport, server: 'credential' },
  );
  const egress = new EgressGuard({ allowlist: compileEgressAllowlist(config) });
  const cache = new ConnectionCache({
    maxEntries: config.MODEL_CONNECTION_CACHE_SIZE,
    ttlMs: config.MODEL_CONNECTION_CACHE_TTL_MS,
  });
  const notices = cache.listen(deps.nc, deps.logger);
  return {
    connections: new CredentialModelConnections({
      client: client.rpc,
      platformToken: config.CREDENTIAL_PLATFORM_TOKEN,
      cache,
      egress,
      tiers: { tiers: config.TENANT_TIERS, defaultTier: config.DEFAULT_TIER },
      modelTimeoutMs: config.LLM_TIMEOUT_MS,
    }),
    ready: notices.ready,
    async close() {
      notices.stop();
      client.close();
      await egress.close();
    },
  };
}
