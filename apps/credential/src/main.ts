import { runService } from '@platform/service-kit';
import { CredentialConfig } from './config.js';
import { startCredentialServer } from './server.js';

await runService({
  name: 'credential',
  config: CredentialConfig,
  start: async (config, logger) => {
    const server = await startCredentialServer(config, logger);
    return { stop: () => server.stop(), ready: { grpcPort: server.port } };
  },
});
