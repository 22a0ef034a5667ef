import { memoryV1 } from '@platform/proto';
import { createGrpcClient, type GrpcClientHandle, type Logger } from '@platform/service-kit';
import { MemoryConfig } from '../config.js';
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
    DATABASE_URL: infra.databaseUrl,
    NATS_URL: infra.natsUrl,
    GRPC_PORT: '0',
    OPENAI_API_KEY: 'unused',
    MEMORY_SESSION_IDLE_MS: '0',
    ...settings,
  });
  const server = await startMemoryServer(config, logger);
  const client = createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, `127.0.0.1:${server.port}`, { defaultDeadlineMs: deadlineMs });
  return { server, client };
}
