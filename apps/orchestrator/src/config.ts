import { TenantTiersEnv } from '@platform/contracts';
import { egressEnv } from '@platform/egress';
import { env, grpcServerEnv, grpcTlsEnv, loggingEnv, natsEnv, postgresEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the orchestrator. */
/** How a model calls tools: `native` function calling, or `text`, the ReAct text protocol for models without it. */
export const ToolProtocol = z.enum(['native', 'text']);
export type ToolProtocol = z.infer<typeof ToolProtocol>;

export const OrchestratorConfig = z
  .object({
    /** GRPC_HOST, GRPC_PORT, and GRPC_HEALTH_PORT (plaintext, grpc.health.v1 only, for probes without a certificate; unset: none). */
    ...grpcServerEnv({ port: 50052 }),
    /** GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: mutual TLS with the platform CA (docs/security.md). */
    ...grpcTlsEnv,
    MEMORY_ADDRESS: z.string().default('127.0.0.1:50051'),
    /** Send each finished turn to the memory service's ingestion queue (long-term knowledge extraction). */
    MEMORY_INGEST_ENABLED: env.boolean().default(true),
    /** A finished turn larger than this is sent without its messages (memory reads them from history). */
    MEMORY_INGEST_MAX_INLINE_BYTES: env.positiveInt().default(512 * 1024),
    /** The agent pool: agent-tools that wait for the user, and approvals. */
    AGENT_POOL_ADDRESS: z.string().default('127.0.0.1:50053'),
    /** Postgres for the run records (schema `orchestrator`, migrated at boot). */
    ...postgresEnv(),
    /** Redis for per-tenant rate limits (losing it costs no data: limits then let requests through). */
    REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
    /** Longest a Redis command waits for its reply (also while Redis is unreachable); then it fails. */
    REDIS_COMMAND_TIMEOUT_MS: env.positiveInt().default(1_000),
    /** Turns one tenant may start per minute, across all replicas; 0 turns the limit off. */
    RATE_LIMIT_TURNS_PER_MINUTE: env.nonNegativeInt().default(60),
    /** Tier limits and quotas as JSON, e.g. {"free":{"turnsPerMinute":10,"tokensPerDay":200000}}; the same value for every service (see docs/operations.md). */
    TENANT_TIERS: TenantTiersEnv,
    /** The tier of tokens that name none. */
    DEFAULT_TIER: z.string().default('default'),
    /** Turns this replica runs at once before new ones are refused with 503 and retry-after. */
    MAX_CONCURRENT_TURNS: env.positiveInt().default(256),
    /** Lease of a run (and of its conversation) while an orchestrator works on it; renewed every third. */
    RUN_LEASE_MS: env.positiveInt().default(15_000),
    /** How often a waiting request looks at a run another replica executes. */
    RUN_POLL_MS: env.positiveInt().default(500),
    /** How often unfinished runs whose holder died are looked for (and resumed). */
    RECOVERY_INTERVAL_MS: env.positiveInt().default(5_000),
    /** How long an Idempotency-Key names the run its first message started (docs/conversations.md). */
    IDEMPOTENCY_KEY_TTL_MS: env.positiveInt().default(24 * 60 * 60_000),
    /** How often expired Idempotency-Keys are deleted (in batches; an expired key is ignored before that). */
    IDEMPOTENCY_SWEEP_INTERVAL_MS: env.positiveInt().default(10 * 60_000),
    /** How often open conversation deletions are looked for (a new one starts at once on the replica that records it). */
    ERASURE_POLL_MS: env.positiveInt().default(5_000),
    /** How long a replica holds a deletion job between steps before another may take it over (it died). */
    ERASURE_LEASE_MS: env.positiveInt().default(60_000),
    /** How long a deletion whose step failed (a service down) waits before it is tried again. */
    ERASURE_RETRY_MS: env.positiveInt().default(5_000),
    /** How often the retention sweep looks for idle conversations (tiers' `conversationRetentionSeconds`). */
    RETENTION_SWEEP_MS: env.positiveInt().default(60 * 60_000),
    /** How long run events are kept in the run-events stream (replay for reconnecting clients). */
    RUN_EVENTS_MAX_AGE_MS: env.positiveInt().default(24 * 60 * 60_000),
    /** Attempts at a run (first + resumes) before it is failed instead of resumed again. */
    MAX_RUN_ATTEMPTS: env.positiveInt().default(5),
    /**
     * After an attempt stopped because a dependency was unreachable (memory, the agent pool, the
     * database), how long the run waits before any replica takes it up again. Such attempts do not
     * count toward MAX_RUN_ATTEMPTS while the run is younger than TURN_TIMEOUT_MS.
     */
    RUN_RETRY_BACKOFF_MS: env.positiveInt().default(1_000),
    /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
    ...natsEnv,
    OPENAI_BASE_URL: env.url().default('https://api.openai.com/v1'),
    OPENAI_API_KEY: z.string().min(1, 'set an API key for the model provider'),
    LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
    LLM_TIMEOUT_MS: env.positiveInt().default(60_000),
    /** Models tried in order (same endpoint and key) when the primary fails beyond its retries. */
    LLM_FALLBACK_MODELS: env.list().default([]),
    /** How the models of the default profile (and of profiles that do not say) call tools. */
    LLM_TOOL_PROTOCOL: ToolProtocol.default('native'),
    LLM_MAX_RETRIES: env.nonNegativeInt().default(2),
    LLM_RETRY_BASE_DELAY_MS: env.nonNegativeInt().default(1_000),
    /** The model's context window in tokens; views are trimmed to fit. */
    CONTEXT_TOKEN_LIMIT: env.positiveInt().default(128_000),
    /** JSON file of agent profiles (see docs); without it, one `default` profile from these settings. */
    AGENT_PROFILES_FILE: z.string().min(1).optional(),
    /** The persona: every turn's system prompt starts with it. */
    SYSTEM_PROMPT: z
      .string()
      .default('You are a helpful assistant. Use the available tools when they help, and answer concisely.'),
    MAX_TURNS: env.positiveInt().default(10),
    TOOL_TIMEOUT_MS: env.positiveInt().default(30_000),
    AGENT_TOOL_TIMEOUT_MS: env.positiveInt().default(120_000),
    /** Consecutive failures (timeouts, busy replicas, transport errors) that open a tool's circuit breaker; 0 = off. */
    TOOL_BREAKER_FAILURES: env.nonNegativeInt().default(5),
    /** How long an open breaker refuses calls to its tool before one trial call may go through. */
    TOOL_BREAKER_COOLDOWN_MS: env.positiveInt().default(30_000),
    /**
     * The private JWK (Ed25519/EdDSA or P-256/ES256, with a `kid`) that signs credential grants for
     * tools declaring `credentials`. Its public half goes to the credential service
     * (CREDENTIAL_GRANT_PUBLIC_KEYS). Unset: such tools are called without a grant.
     */
    CREDENTIAL_GRANT_SIGNING_KEY: z.string().min(1).optional(),
    /** Longest a credential grant lives; it normally expires a few seconds after its call's deadline. */
    CREDENTIAL_GRANT_MAX_TTL_SECONDS: env.positiveInt().default(300),
    /** Seconds a grant outlives its call's deadline. */
    CREDENTIAL_GRANT_SLACK_SECONDS: env.nonNegativeInt().default(5),
    /** The credential service, where tenants' model connections live (docs/models.md, "Models the tenant brings"). */
    CREDENTIAL_ADDRESS: z.string().default('127.0.0.1:50055'),
    /**
     * The orchestrator's platform token for the credential service (one of its
     * CREDENTIAL_PLATFORM_TOKENS), to read model connections. Unset: agents cannot name one.
     */
    CREDENTIAL_PLATFORM_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Model connections kept per replica (least recently used dropped first). */
    MODEL_CONNECTION_CACHE_SIZE: env.positiveInt().default(1_000),
    /** Longest a cached model connection is used without reading it again (change notices drop it at once). */
    MODEL_CONNECTION_CACHE_TTL_MS: env.positiveInt().default(60_000),
    /**
     * Tenants' model endpoints are reached through the egress guard (public addresses only);
     * EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS admit deliberate internal ones. Keep them equal to the
     * credential service's, which checks the same URLs when they are written.
     */
    ...egressEnv,
    /** Remote A2A agents (docs/remote-agents.md): how often a remote task is polled (tasks/get) while it works. */
    REMOTE_AGENT_POLL_MS: env.positiveInt().default(1_000),
    /** One A2A call's limit (fetching the card, sending the task, one poll, the cancel). */
    REMOTE_AGENT_CALL_TIMEOUT_MS: env.positiveInt().default(30_000),
    /** Run webhooks (docs/conversations.md): one POST's limit, tries, backoff, how often the outbox is read, retention. */
    RUN_WEBHOOK_TIMEOUT_MS: env.positiveInt().default(10_000),
    RUN_WEBHOOK_MAX_ATTEMPTS: env.positiveInt().default(8),
    RUN_WEBHOOK_RETRY_BASE_MS: env.positiveInt().default(1_000),
    RUN_WEBHOOK_RETRY_MAX_MS: env.positiveInt().default(300_000),
    RUN_WEBHOOK_INTERVAL_MS: env.positiveInt().default(1_000),
    RUN_WEBHOOK_RETENTION_DAYS: env.positiveInt().default(7),
    /** Accept plain `http://` run webhook URLs (development, tests); otherwise https only. */
    RUN_WEBHOOK_ALLOW_HTTP: env.boolean().default(false),
    MAX_TOOL_CALLS_PER_TURN: env.positiveInt().default(64),
    /** Deepest delegation: a run a user started is depth 0, its child 1, ... (see docs/plans-and-teams.md). */
    MAX_DELEGATION_DEPTH: env.nonNegativeInt().default(3),
    /** Default deadline of one delegation (a child run), capped by the parent's turn deadline and AGENT_TOOL_TIMEOUT_MS. */
    DELEGATION_TIMEOUT_MS: env.positiveInt().default(110_000),
    /** Time zone for the framework context when a request names none. */
    DEFAULT_TIMEZONE: z.string().default('UTC'),
    TURN_TIMEOUT_MS: env.positiveInt().default(120_000),
    /** Most history messages loaded into a turn. */
    HISTORY_MESSAGES: env.positiveInt().default(200),
    /**
     * The most history bytes loaded per turn (the newest messages that fit; at most memory's
     * MEMORY_MAX_PAGE_BYTES). Far more than a request view can use, yet a conversation of huge tool
     * results never loads megabytes it would only trim.
     */
    HISTORY_MAX_BYTES: env.positiveInt().default(4 * 1024 * 1024),
    /**
     * Token budget of the long-term memory block recalled into each turn's system prompt (delimiters
     * included; the same chars/4 estimate as the context manager). 0 turns recall off.
     */
    MEMORY_CONTEXT_TOKENS: env.nonNegativeInt().default(400),
    /** Deadline of the recall call; a slower (or stopped) memory costs the turn its recall, never the turn. */
    MEMORY_RECALL_TIMEOUT_MS: env.positiveInt().default(250),
    /** Most recalled items injected into a turn. */
    MEMORY_RECALL_LIMIT: env.positiveInt().max(100).default(8),
    /**
     * Ceiling of the adaptive cap on recalls in flight from this replica (it shrinks when recalls time
     * out and grows back while they answer within half the deadline); a recall past the cap is not
     * sent and the turn goes on without recalled memory. 0 = no cap.
     */
    MEMORY_RECALL_MAX_IN_FLIGHT: env.nonNegativeInt().default(64),
    /** Collections recalled from, as a prefix (`user:alice` covers `user:alice:*`); empty = all of the tenant's. */
    MEMORY_RECALL_COLLECTION_PREFIX: z.string().default(''),
    CATALOG_REFRESH_MS: env.positiveInt().default(5_000),
    /** How long a discovery round (`$SRV.INFO`) waits for runners, and GET /v1/tools for each replica's `$SRV.STATS`. */
    CATALOG_DISCOVERY_WAIT_MS: env.positiveInt().default(300),
    /** Deadline of calls to other services (memory). */
    GRPC_DEADLINE_MS: env.positiveInt().default(10_000),
    ...shutdownEnv({ graceMs: 30_000 }),
    ...loggingEnv,
  })
  .refine((config) => config.MEMORY_CONTEXT_TOKENS <= config.CONTEXT_TOKEN_LIMIT / 4, {
    // The block sits in the system prompt, which a request view never trims: it must leave the
    // conversation most of the window.
    message: 'must be at most a quarter of CONTEXT_TOKEN_LIMIT',
    path: ['MEMORY_CONTEXT_TOKENS'],
  });
export type OrchestratorConfig = z.infer<typeof OrchestratorConfig>;
