import { openGrpcTransport, type Logger, type NatsConnection, type Redis } from '@platform/service-kit';
import { serveRunner, type ToolRunner } from '@platform/tool-sdk';
import type { TravelRunnerConfig } from './config.js';
import { Outbox } from './outbox.js';
import { travelTools } from './tools/index.js';

/** The service name in discovery; every replica uses it. */
export const RUNNER_NAME = 'travel-runner';
/** The runner's version (semver) in discovery. Each tool has its own version as well. */
const RUNNER_VERSION = '0.1.0';
/** How long a finished `send_email` step is replayed to repeats instead of running again. */
const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface TravelRunnerDeps {
  nc: NatsConnection;
  redis: Redis;
  config: TravelRunnerConfig;
  logger: Logger;
}

/**
 * Serves the example's tools and agent-tools as one NATS micro service. main.ts and the tests
 * both call it, so the tests cover the real wiring (name, tools, dedupe, outbox).
 */
export async function serveTravelRunner({ nc, redis, config, logger }: TravelRunnerDeps): Promise<ToolRunner> {
  const outbox = new Outbox(config.OUTBOX_DIR);
  await outbox.ensure();
  const { tools, agents } = travelTools(outbox);
  return serveRunner({
    nc,
    name: RUNNER_NAME,
    version: RUNNER_VERSION,
    description: 'Example runner: flight search, weather and email with made-up data (seed 000, section 7)',
    tools,
    agents,
    logger,
    idempotency: { redis, ttlSeconds: IDEMPOTENCY_TTL_SECONDS },
    credentials: { address: config.CREDENTIAL_ADDRESS, transport: openGrpcTransport(config, logger) },
  });
}
