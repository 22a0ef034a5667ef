import { runService } from '@platform/service-kit';
import { TriggerConfig } from './config.js';
import { startTriggerServer } from './server.js';

await runService({
  name: 'trigger',
  config: TriggerConfig,
  start: async (config, logger) => {
    const server = await startTriggerServer(config, logger);
    return { stop: () => server.stop(), ready: { grpcPort: server.port, replicaId: server.replicaId } };
  },
});
