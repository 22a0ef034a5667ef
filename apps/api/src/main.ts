import { announceReady, createLogger, GracefulShutdown, loadConfig } from '@platform/service-kit';
import { ApiConfig } from './config.js';
import { startApiServer } from './server.js';

const config = loadConfig(ApiConfig);
const logger = createLogger({ service: 'api', level: config.LOG_LEVEL });
const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_GRACE_MS + 5_000 }).listen();

const server = await startApiServer(config, logger);
shutdown.add('stop http and clients', () => server.stop());
announceReady(logger, { httpPort: server.port });
