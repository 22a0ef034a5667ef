import { egressEnv } from '@platform/egress';
import { TenantTiersEnv } from '@platform/contracts';
import { env, grpcServerEnv, grpcTlsEnv, loggingEnv, natsEnv, postgresEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the trigger service. Several replicas may run against one database. */
export const TriggerConfig = z.object({
  /** GRPC_HOST, GRPC_PORT, and GRPC_HEALTH_PORT (plaintext, grpc.health.v1 only, for probes without a certificate; unset: none). */
  ...grpcServerEnv({ port: 50056 }),
  /** GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: mutual TLS with the platform CA (docs/security.md). */
  ...grpcTlsEnv,
  /** Postgres (DATABASE_URL, DATABASE_POOL_MAX), the system of record for tasks and fires (schema `trigger`, migrated at boot). */
  ...postgresEnv(),
  /** NATS: custom executors are called over the tool protocol. */
  /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
  ...natsEnv,
  /** The orchestrator that runs fires of tasks with the `orchestrator` executor. */
  ORCHESTRATOR_ADDRESS: z.string().default('127.0.0.1:50052'),
  /** Name of this replica in fire leases and logs; empty = host name and process id. */
  TRIGGER_REPLICA_ID: z.string().default(''),
  /** How often a replica looks for tasks whose next time has come (and plans their fires). */
  TRIGGER_PLAN_INTERVAL_MS: env.positiveInt().default(200),
  /** Fires are planned this far ahead of their time, so they are claimable the moment they are due. */
  TRIGGER_PLAN_AHEAD_MS: env.nonNegativeInt().default(5_000),
  /** Tasks one planning round takes at most (per transaction). */
  TRIGGER_PLAN_BATCH: env.positiveInt().default(500),
  /** How often a replica looks for due fires when it was not woken for one. */
  TRIGGER_DISPATCH_INTERVAL_MS: env.positiveInt().default(100),
  /**
   * Fires due within this much are claimed ahead of their time (a lease that runs until their time
   * plus TRIGGER_LEASE_MS) and started by a timer at their time, with no claim to wait for then.
   * Keep it under TRIGGER_PLAN_AHEAD_MS (fires must be planned to be claimed); 0 turns it off.
   */
  TRIGGER_CLAIM_AHEAD_MS: env.nonNegativeInt().default(3_000),
  /** Fires one claim-ahead statement takes; each replica takes one batch per TRIGGER_DISPATCH_INTERVAL_MS. */
  TRIGGER_CLAIM_AHEAD_BATCH: env.positiveInt().default(1_000),
  /** Fires one replica executes at once. */
  TRIGGER_MAX_CONCURRENT_FIRES: env.positiveInt().default(256),
  /**
   * A claimed fire's lease: while a replica executes a fire it renews the lease; when the replica
   * dies, another claims the fire once the lease has run out and executes it with the same fire id.
   */
  TRIGGER_LEASE_MS: env.positiveInt().default(15_000),
  /** A scheduled time later than this is a misfire (handled by the task's misfire policy). */
  TRIGGER_MISFIRE_GRACE_MS: env.nonNegativeInt().default(60_000),
  /** Most missed times one task catches up after downtime (policy catch_up), whatever its window. */
  TRIGGER_MAX_CATCH_UP: env.positiveInt().default(100),
  /** Attempts of a fire whose executor failed (back-pressure answers are not counted). */
  TRIGGER_MAX_ATTEMPTS: env.positiveInt().default(5),
  /** First retry delay after a failed attempt; doubles each attempt, capped by TRIGGER_RETRY_MAX_MS. */
  TRIGGER_RETRY_BASE_MS: env.positiveInt().default(1_000),
  TRIGGER_RETRY_MAX_MS: env.positiveInt().default(60_000),
  /** Deadline of one orchestrator turn started by a fire. */
  TRIGGER_ORCHESTRATOR_TIMEOUT_MS: env.positiveInt().default(300_000),
  /** Deadline of one custom executor call (the executor's own timeout may be shorter). */
  TRIGGER_EXECUTOR_TIMEOUT_MS: env.positiveInt().default(60_000),
  /**
   * Custom-executor fires that start together (same executor) go to the runner in one
   * batched request of at most this many (tool protocol "Batched calls"); 1 sends every fire alone.
   */
  TRIGGER_EXECUTOR_BATCH_MAX: env.positiveInt().max(256).default(64),
  /** How often a replica looks for condition triggers due for a poll, and how long one poll may take. */
  TRIGGER_CONDITION_POLL_INTERVAL_MS: env.positiveInt().default(1_000),
  TRIGGER_CONDITION_TOOL_TIMEOUT_MS: env.positiveInt().default(10_000),
  /**
   * Tool calls of tasks go through the orchestrator's tool gate (CallTool): how long past the
   * call's own timeout the orchestrator may take to answer, and the deadline of the check of a
   * task's tools at its creation.
   */
  TRIGGER_TOOL_GATE_TIMEOUT_MS: env.positiveInt().default(5_000),
  /** How long the external-events stream (`TRIGGER_EVENTS`) keeps events. */
  TRIGGER_EVENTS_MAX_AGE_HOURS: env.positiveInt().default(24),
  /** Largest event data accepted through PublishEvent, in bytes of JSON. */
  TRIGGER_MAX_EVENT_BYTES: env.positiveInt().default(256 * 1024),
  /**
   * Regular expressions of event filters and conditions (`~=`, RE2 syntax, linear-time matching):
   * the longest pattern in characters, the most instructions it may compile to, and the longest
   * text one `~=` matches (a longer one is the task's lastError FILTER_INPUT_TOO_LONG). One match
   * costs at most about program size x text length steps, so these two bound a filter's work.
   */
  TRIGGER_FILTER_MAX_PATTERN_CHARS: env.positiveInt().default(1_000),
  TRIGGER_FILTER_MAX_PATTERN_PROGRAM: env.positiveInt().default(500),
  TRIGGER_FILTER_MAX_INPUT_CHARS: env.positiveInt().default(256 * 1024),
  /** Webhook deliveries: deadline of one POST, attempts (5xx, 429, 408 and network errors are retried), backoff. */
  TRIGGER_WEBHOOK_TIMEOUT_MS: env.positiveInt().default(10_000),
  TRIGGER_WEBHOOK_MAX_ATTEMPTS: env.positiveInt().default(8),
  TRIGGER_WEBHOOK_RETRY_BASE_MS: env.positiveInt().default(1_000),
  TRIGGER_WEBHOOK_RETRY_MAX_MS: env.positiveInt().default(300_000),
  /** Accept plain `http://` webhook URLs (development, tests); production requires https. */
  TRIGGER_WEBHOOK_ALLOW_HTTP: env.boolean().default(false),
  /**
   * Webhook URLs reach public addresses only (libs/egress); EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS
   * name deliberate internal receivers (docs/triggers.md#webhook-url-rules).
   */
  ...egressEnv,
  /** Page sizes of ListTasks / ListFires. */
  TRIGGER_PAGE_SIZE: env.positiveInt().default(50),
  TRIGGER_MAX_PAGE_SIZE: env.positiveInt().default(500),
  /** Largest task spec accepted, in bytes. */
  TRIGGER_MAX_SPEC_BYTES: env.positiveInt().default(64 * 1024),
  /** Tasks one tenant may have, for tiers whose `tasks` quota is unset. */
  TRIGGER_MAX_TASKS_PER_TENANT: env.positiveInt().default(10_000),
  /** Tier limits and quotas as JSON (the same value for every service; here `tasks` and `minScheduleIntervalSeconds`), see docs/operations.md. */
  TENANT_TIERS: TenantTiersEnv,
  /** The tier of requests that name none (or one TENANT_TIERS does not define). */
  DEFAULT_TIER: z.string().default('default'),
  /** How long the notification feed (GET /v1/notifications) keeps a notification. */
  TRIGGER_NOTIFICATION_RETENTION_HOURS: env.positiveInt().default(168),
  ...shutdownEnv(),
  ...loggingEnv,
});
export type TriggerConfig = z.infer<typeof TriggerConfig>;
