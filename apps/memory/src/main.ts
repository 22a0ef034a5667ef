import { announceReady, createLogger, GracefulShutdown, loadConfig } from '@platform/service-kit';
import { MemoryConfig } from './config.js';
import { startMemoryServer } from './server.js';

const config = loadConfig(MemoryConfig);
const logger = createLogger({ service: 'memory', level: config.LOG_LEVEL });
const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_GRACE_MS + 5_000 }).listen();

const server = await startMemoryServer(config, logger);
shutdown.add('stop grpc and close database', () => server.stop());
announceReady(logger, { grpcPort: server.port });
