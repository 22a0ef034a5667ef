import { env, grpcServerEnv, grpcTlsEnv, loggingEnv, natsEnv, postgresEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';

const HOUR_MS = 60 * 60 * 1000;

/** Environment of the agent pool. */
export const AgentPoolConfig = z.object({
  /** GRPC_HOST, GRPC_PORT, and GRPC_HEALTH_PORT (plaintext, grpc.health.v1 only, for probes without a certificate; unset: none). */
  ...grpcServerEnv({ port: 50053 }),
  /** GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: mutual TLS with the platform CA (docs/security.md). */
  ...grpcTlsEnv,
  /**
   * Postgres, the system of record (schema `agent_pool`, migrated at boot). DATABASE_POOL_MAX:
   * connections per replica. A running agent step holds one (its row lock) until the runner
   * answers, so this also bounds the steps one replica runs at once.
   */
  ...postgresEnv({ poolMax: 20 }),
  /** NATS: agent-tool calls (request-reply), runner discovery, and the JetStream event stream. */
  /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
  ...natsEnv,
  /** Live entries (waiting or paused) one tenant may have; past it StartAgent is RESOURCE_EXHAUSTED. */
  MAX_LIVE_AGENTS_PER_TENANT: env.positiveInt().default(20),
  /** How long an entry waits for the user's input before it expires. */
  AGENT_INPUT_TTL_MS: env.positiveInt().default(24 * HOUR_MS),
  /** Approval timeout when an approval request carries none (requests normally say `timeoutMinutes`). */
  APPROVAL_TIMEOUT_MINUTES: env.positiveInt().default(30),
  /** How long a paused entry is kept before it expires; resuming restarts its wait. */
  AGENT_PAUSED_TTL_MS: env.positiveInt().default(7 * 24 * HOUR_MS),
  /** Longest one agent step may take (capped by the agent's own timeout and the caller's deadline). */
  AGENT_STEP_TIMEOUT_MS: env.positiveInt().default(120_000),
  /** Largest fields_json / changes_json / message / arguments_json accepted, in bytes. */
  AGENT_MAX_INPUT_BYTES: env.positiveInt().default(256 * 1024),
  /** How often each replica looks for expired entries (replicas never expire the same entry twice). */
  SWEEP_INTERVAL_MS: env.positiveInt().default(5_000),
  /** Entries one sweep round expires at most. */
  SWEEP_BATCH_SIZE: env.positiveInt().default(200),
  /** Finished entries are deleted this many days after their last change; 0 keeps them forever. */
  FINISHED_RETENTION_DAYS: env.nonNegativeInt().default(30),
  /** JetStream stream of the pool's events (subjects `platform.agent-pool.events.>`), created if missing. */
  EVENTS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"')
    .default('AGENT_POOL_EVENTS'),
  /** How long the stream keeps events. */
  EVENTS_MAX_AGE_HOURS: env.positiveInt().default(7 * 24),
  /** Runner discovery (the live catalog the schema version guard reads). */
  CATALOG_REFRESH_MS: env.positiveInt().default(5_000),
  CATALOG_DISCOVERY_WAIT_MS: env.positiveInt().default(300),
  ...shutdownEnv(),
  ...loggingEnv,
});
export type AgentPoolConfig = z.infer<typeof AgentPoolConfig>;
