import { memoryV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, type GrpcClientHandle, type Logger } from '@platform/service-kit';
import { callerRoutedClient, sharedServicePki, testCertificates } from '@platform/testing';
import { MemoryConfig } from '../config.js';
import { MEMORY_CALLERS } from '../grpc-callers.js';
import { startMemoryServer, type MemoryServer } from '../server.js';

export interface TestMemory {
  server: MemoryServer;
  client: GrpcClientHandle<memoryV1.MemoryServiceClient>;
}

/**
 * A memory service in this process on a free port, and a gRPC client to it. Sessions are never
 * summarised and the model key is a placeholder unless `settings` say otherwise; `settings` are
 * the test's own environment variables, parsed by the service's config as at boot.
 */
export async function startTestMemory(
  infra: { databaseUrl: string; natsUrl: string },
  settings: Record<string, string>,
  logger: Logger,
  deadlineMs = 10_000,
): Promise<TestMemory> {
  const config = MemoryConfig.parse({
    ...(await memoryTlsEnv()),
    DATABASE_URL: infra.databaseUrl,
    NATS_URL: infra.natsUrl,
    GRPC_PORT: '0',
    OPENAI_API_KEY: 'unused',
    MEMORY_SESSION_IDLE_MS: '0',
    ...settings,
  });
  const server = await startMemoryServer(config, logger);
  const client = await memoryTestClient(server.port, deadlineMs);
  return { server, client };
}

/** The GRPC_TLS_* settings of a memory server in a test (the test process's CA). */
export async function memoryTlsEnv(): Promise<Record<string, string>> {
  return (await sharedServicePki()).env('memory');
}

/**
 * A client of a memory server on `port` that calls each method as a service allowed to (the
 * orchestrator appends and recalls, the api reads facts), over mutual TLS.
 */
export async function memoryTestClient(
  port: number,
  deadlineMs = 10_000,
): Promise<GrpcClientHandle<memoryV1.MemoryServiceClient>> {
  const as = async (identity: string) =>
    [
      identity,
      createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, `127.0.0.1:${port}`, {
        defaultDeadlineMs: deadlineMs,
        transport: new MutualTlsTransport(await testCertificates(identity)),
        server: 'memory',
      }),
    ] as const;
  return callerRoutedClient(MEMORY_CALLERS, [await as('orchestrator'), await as('api')]);
}
