import { announceReady, connectNats, createLogger, GracefulShutdown, loadConfig } from '@platform/service-kit';
import { serveRunner } from '@platform/tool-sdk';
import { RunnerConfig } from './config.js';
import { builtinTools } from './tools/index.js';

const config = loadConfig(RunnerConfig);
const logger = createLogger({ service: 'tool-runner', level: config.LOG_LEVEL });
const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_GRACE_MS + 5_000 }).listen();

const nc = await connectNats({ servers: config.NATS_URL, name: `tool-runner:${config.RUNNER_NAME}`, logger });
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
shutdown.add('drain tool calls', () => runner.stop(config.SHUTDOWN_GRACE_MS)).add('close nats', () => nc.drain());
announceReady(logger, { runnerId: runner.id });
