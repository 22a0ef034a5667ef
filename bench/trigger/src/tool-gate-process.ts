// The tool gate the no-op rounds' trigger replicas call: since issue 34 a custom executor is
// reached only through the orchestrator's gate (CallTool / CallToolBatch), so each round runs a
// real orchestrator (built output, its own journal schema in the round's database) for the
// replicas to call. Nothing else of the platform is needed: no fire of these rounds starts a turn,
// so memory and the agent pool are never called (their addresses point nowhere).
import { generateCredentialKeys, sharedServicePki, startServiceProcess, type ServiceProcess } from '@platform/testing';

export interface ToolGateProcess {
  process: ServiceProcess;
  /** The gRPC address for the replicas' ORCHESTRATOR_ADDRESS. */
  address: string;
}

export async function startToolGate(infra: {
  databaseUrl: string;
  natsUrl: string;
  redisUrl: string;
}): Promise<ToolGateProcess> {
  const process = await startServiceProcess({
    app: 'orchestrator',
    readyTimeoutMs: 120_000,
    env: {
      ...(await (await sharedServicePki()).env('orchestrator')),
      DATABASE_URL: infra.databaseUrl,
      NATS_URL: infra.natsUrl,
      REDIS_URL: infra.redisUrl,
      GRPC_PORT: '0',
      LOG_LEVEL: 'warn',
      // No turn runs here: the model, memory and the agent pool are never called.
      OPENAI_API_KEY: 'unused',
      MEMORY_ADDRESS: '127.0.0.1:9',
      AGENT_POOL_ADDRESS: '127.0.0.1:9',
      CREDENTIAL_GRANT_SIGNING_KEY: generateCredentialKeys().grantSigningKey,
      // The bench's runner is in the catalog before the first task is created.
      CATALOG_REFRESH_MS: '1000',
    },
  });
  return { process, address: `127.0.0.1:${String(process.ready['grpcPort'])}` };
}
