import { connectNats, createRedis, runService } from '@platform/service-kit';
import { TravelRunnerConfig } from './config.js';
import { RUNNER_NAME, serveTravelRunner } from './runner.js';

await runService({
  name: RUNNER_NAME,
  config: TravelRunnerConfig,
  start: async (config, logger) => {
    const nc = await connectNats({ config, name: RUNNER_NAME, logger });
    const redis = createRedis({ url: config.REDIS_URL, name: RUNNER_NAME, logger });
    const runner = await serveTravelRunner({ nc, redis, config, logger });
    return {
      async stop() {
        // Stop taking calls and let in-flight ones finish first; draining NATS then flushes their replies.
        await runner.stop(config.SHUTDOWN_GRACE_MS);
        await nc.drain();
        await redis.quit();
      },
      ready: { runnerId: runner.id, outbox: config.OUTBOX_DIR },
    };
  },
});
