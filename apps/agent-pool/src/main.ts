import { runService } from '@platform/service-kit';
import { AgentPoolConfig } from './config.js';
import { startAgentPoolServer } from './server.js';

await runService({
  name: 'agent-pool',
  config: AgentPoolConfig,
  start: async (config, logger) => {
    const server = await startAgentPoolServer(config, logger);
    return { stop: () => server.stop(), ready: { grpcPort: server.port } };
  },
});
