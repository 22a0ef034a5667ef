import { memoryV1 } from '@platform/proto';
import { GrpcServer, openServiceDatabase, type Logger } from '@platform/service-kit';
import { fileURLToPath } from 'node:url';
import type { MemoryConfig } from './config.js';
import { memoryServiceImplementation } from './memory-service.js';
import { MessageStore } from './message-store.js';

export const MEMORY_SCHEMA = 'memory';
export const MEMORY_SERVICE_NAME = 'memory.v1.MemoryService';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** A started memory service: migrated database, gRPC server listening. */
export interface MemoryServer {
  readonly port: number;
  stop(): Promise<void>;
}

export async function startMemoryServer(config: MemoryConfig, logger: Logger): Promise<MemoryServer> {
  const pool = await openServiceDatabase({ url: config.DATABASE_URL, schema: MEMORY_SCHEMA, migrationsDir, applicationName: 'memory', maxConnections: config.DATABASE_POOL_MAX, logger });
  try {
    const grpc = new GrpcServer({ host: config.GRPC_HOST, port: config.GRPC_PORT, logger });
    grpc.addService(MEMORY_SERVICE_NAME, memoryV1.MemoryServiceService, memoryServiceImplementation(new MessageStore(pool), config, logger));
    const port = await grpc.start();
    return {
      port,
      async stop() {
        await grpc.stop(config.SHUTDOWN_GRACE_MS);
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end();
    throw err;
  }
}
