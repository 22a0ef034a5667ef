import { runService } from '@platform/service-kit';
import { MemoryConfig } from './config.js';
import { startMemoryServer } from './server.js';

await runService({
  name: 'memory',
  config: MemoryConfig,
  start: async (config, logger) => {
    const server = await startMemoryServer(config, logger);
    return { stop: () => server.stop(), ready: { grpcPort: server.port, search: server.search } };
  },
});
