import { env } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the built-in tool runner. */
export const RunnerConfig = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Service name in discovery; replicas share it. */
  RUNNER_NAME: z.string().regex(/^[A-Za-z0-9_-]+$/).default('builtin-tools'),
  RUNNER_MAX_CONCURRENCY: env.positiveInt().default(64),
  TOOL_MAX_RESULT_BYTES: env.positiveInt().default(256 * 1024),
  CALCULATOR_MAX_EXPRESSION_LENGTH: env.positiveInt().default(500),
  /** How long in-flight calls may finish after SIGTERM. */
  SHUTDOWN_GRACE_MS: env.positiveInt().default(10_000),
  LOG_LEVEL: env.logLevel().default('info'),
});
export type RunnerConfig = z.infer<typeof RunnerConfig>;
