// A tool runner process for lifecycle tests: `whoami` answers with this process's pid; `sleepy`
// waits the requested time (or until its call is aborted). Run with tsx; env NATS_URL,
// RUNNER_NAME, TOOL_PREFIX.
import { announceReady, connectNats, createLogger } from '@platform/service-kit';
import { defineTool, serveRunner } from '@platform/tool-sdk';
import { z } from 'zod';

const prefix = process.env['TOOL_PREFIX'] ?? '';
const logger = createLogger({ service: 'fixture-runner', level: 'warn' });
const nc = await connectNats({
  servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
  name: 'fixture-runner',
  logger,
});
const runner = await serveRunner({
  nc,
  name: process.env['RUNNER_NAME'] ?? 'fixture-runner',
  version: '1.0.0',
  logger,
  tools: [
    defineTool({
      name: `${prefix}whoami`,
      description: 'Answers with the pid of the runner process.',
      input: z.object({}),
      handler: async () => ({ pid: process.pid }),
    }),
    defineTool({
      name: `${prefix}sleepy`,
      description: 'Waits for the given time.',
      input: z.object({ ms: z.number().int().nonnegative() }),
      timeoutMs: 60_000,
      handler: ({ ms }, context) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve({ slept: ms }), ms);
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        }),
    }),
  ],
});
process.once('SIGTERM', () => {
  void runner
    .stop(1_000)
    .then(() => nc.drain())
    .then(() => process.exit(0));
});
announceReady(logger, { pid: process.pid });
