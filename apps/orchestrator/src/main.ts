import { runService } from '@platform/service-kit';
import { OrchestratorConfig } from './config.js';
import { startOrchestratorServer } from './server.js';

await runService({
  name: 'orchestrator',
  config: OrchestratorConfig,
  start: async (config, logger) => {
    const server = await startOrchestratorServer(config, logger);
    return { stop: () => server.stop(), ready: { grpcPort: server.port } };
  },
});
