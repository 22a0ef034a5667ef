import { runService } from '@platform/service-kit';
import { ApiConfig } from './config.js';
import { startApiServer } from './server.js';

await runService({
  name: 'api',
  config: ApiConfig,
  start: async (config, logger) => {
    const server = await startApiServer(config, logger);
    return { stop: () => server.stop(), ready: { httpPort: server.port } };
  },
});
