import { connectNats, runService } from '@platform/service-kit';
import { serveRunner } from '@platform/tool-sdk';
import { RunnerConfig } from './config.js';
import { builtinTools } from './builtin-tools.js';

await runService({
  name: 'tool-runner',
  config: RunnerConfig,
  start: async (config, logger) => {
    const nc = await connectNats({ config, name: `tool-runner:${config.RUNNER_NAME}`, logger });
    const runner = await serveRunner({
      nc,
      name: config.RUNNER_NAME,
      version: '1.0.0',
      description: 'The platform built-in tools',
      tools: builtinTools(config),
      logger,
      maxConcurrency: config.RUNNER_MAX_CONCURRENCY,
      maxResultBytes: config.TOOL_MAX_RESULT_BYTES,
    });
    return {
      async stop() {
        await runner.stop(config.SHUTDOWN_GRACE_MS);
        await nc.drain();
      },
      ready: { runnerId: runner.id },
    };
  },
});
