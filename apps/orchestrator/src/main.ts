import { announceReady, createLogger, GracefulShutdown, loadConfig } from '@platform/service-kit';
import { OrchestratorConfig } from './config.js';
import { startOrchestratorServer } from './server.js';

const config = loadConfig(OrchestratorConfig);
const logger = createLogger({ service: 'orchestrator', level: config.LOG_LEVEL });
const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_GRACE_MS + 5_000 }).listen();

const server = await startOrchestratorServer(config, logger);
shutdown.add('stop grpc, catalog and connections', () => server.stop());
announceReady(logger, { grpcPort: server.port });
