import { fileURLToPath } from 'node:url';
import { TenantRole, TenantTiersEnv } from '@platform/contracts';
import { env, grpcTlsEnv, loggingEnv, natsEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the HTTP api. */
export const ApiConfig = z
  .object({
    /** GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: the api's identity for the services it calls (docs/security.md). */
    ...grpcTlsEnv,
    HTTP_HOST: z.string().default('127.0.0.1'),
    HTTP_PORT: env.port().default(8080),
    /**
     * Connections the kernel queues for the api before it accepts them (the listen backlog; the
     * kernel caps it at net.core.somaxconn). Node's 511 overflows when thousands of clients connect
     * at once: their SYNs are dropped and retried after 1, 3 and 7 s, and clients give up.
     */
    HTTP_BACKLOG: env.positiveInt().default(4096),
    /** The api's public URL behind a gateway (e.g. https://api.example.com), as A2A agent cards name endpoints; unset: each request's scheme and Host. */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    ORCHESTRATOR_ADDRESS: z.string().default('127.0.0.1:50052'),
    MEMORY_ADDRESS: z.string().default('127.0.0.1:50051'),
    /** The agent pool, for the approvals endpoints. */
    AGENT_POOL_ADDRESS: z.string().default('127.0.0.1:50053'),
    /** The credential service (PUT/GET/DELETE /v1/credentials). */
    CREDENTIAL_ADDRESS: z.string().default('127.0.0.1:50055'),
    /** The api's platform token for the credential service (one of its CREDENTIAL_PLATFORM_TOKENS); unset: credential routes answer 503. */
    CREDENTIAL_PLATFORM_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
    /** The trigger service, for the tasks endpoints (not part of readiness: tasks answer 503 while it is down). */
    TRIGGER_ADDRESS: z.string().default('127.0.0.1:50056'),
    /** NATS with JetStream: the api reads run events (SSE) from the run-events stream. */
    /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
    ...natsEnv,
    /** Redis for the per-tenant quotas shared by every api replica (open streams, event rate); losing it lets requests through. */
    REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
    /** Longest a Redis command waits for its reply (also while Redis is unreachable); then the quota lets the request through. */
    REDIS_COMMAND_TIMEOUT_MS: env.positiveInt().default(1_000),
    /** Tier limits and quotas as JSON (the same value for every service; here `concurrentStreams` and `eventsPerMinute`), see docs/operations.md. */
    TENANT_TIERS: TenantTiersEnv,
    /** The tier of tokens that name none (or one TENANT_TIERS does not define). */
    DEFAULT_TIER: z.string().default('default'),
    /** How long an open stream counts against its tenant's quota without its replica renewing it (a crashed replica's streams stop counting after it). */
    STREAM_LEASE_MS: env.positiveInt().default(30_000),
    /** Interval of keep-alive comments on event streams. */
    SSE_HEARTBEAT_MS: env.positiveInt().default(15_000),
    /** How often an open GET /v1/notifications stream asks the trigger service for new notifications. */
    NOTIFICATIONS_POLL_MS: env.positiveInt().default(1_000),
    /** Retention of the run-events stream; keep it equal to the orchestrator's RUN_EVENTS_MAX_AGE_MS. */
    RUN_EVENTS_MAX_AGE_MS: env.positiveInt().default(24 * 60 * 60_000),
    /** HS256 secret that signs client tokens; at least 32 characters. Set it, AUTH_JWKS_URL, or both. */
    AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** JSON Web Key Set (https URL) whose keys verify RS*, PS* and ES* tokens, chosen by `kid`. */
    AUTH_JWKS_URL: env
      .url()
      .refine((url) => /^https?:\/\//i.test(url), 'must be an http(s) URL')
      .optional(),
    /** When set, tokens must carry exactly this `iss`. */
    AUTH_ISSUER: z.string().trim().min(1).optional(),
    /** When set (comma-separated), a token's `aud` must name at least one of these. */
    AUTH_AUDIENCE: env.list().pipe(z.array(z.string()).min(1, 'must name at least one audience')).optional(),
    /** The role (in a token's `roles` claim) that opens the operators' read-only routes and the Platform-Tenant header. */
    AUTH_OPERATOR_ROLE: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits, ".", ":", "-" or "_"')
      .default('platform-operator'),
    /** The tenant role of a token whose `roles` claim names none of admin, developer, member, viewer (docs/access.md#roles). */
    AUTH_DEFAULT_TENANT_ROLE: TenantRole.default('member'),
    /** Longest a verified API key is trusted without asking the credential service again (a revocation reaches every replica over NATS sooner). */
    API_KEY_CACHE_MS: env.positiveInt().default(60_000),
    /** Verified API keys remembered per replica; 0 asks the credential service on every request. */
    API_KEY_CACHE_SIZE: env.nonNegativeInt().default(10_000),
    /** How often a replica sends its API keys' last uses to the credential service (one call, not one per request). */
    API_KEY_USE_FLUSH_MS: env.positiveInt().default(60_000),
    /** Leeway for the `exp` and `nbf` claims and a future `iat` (clocks that disagree), in seconds. */
    AUTH_CLOCK_TOLERANCE_SECONDS: env.nonNegativeInt().default(5),
    /** Longest token lifetime accepted (`exp` minus `iat`, or minus now): seconds, or a number with `s`, `m`, `h` or `d`. */
    AUTH_MAX_TOKEN_LIFETIME: z
      .string()
      .trim()
      .default('24h')
      .transform((text, ctx) => {
        const match = /^(\d+)\s*([smhd]?)$/.exec(text);
        const seconds = match
          ? Number(match[1]) * { '': 1, s: 1, m: 60, h: 3_600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd']
          : 0;
        if (seconds > 0) return seconds;
        ctx.addIssue({
          code: 'custom',
          message: 'must be a positive duration: seconds, or a number with s, m, h or d (e.g. 24h)',
        });
        return z.NEVER;
      }),
    /** Verified tokens remembered (least recently used dropped first); 0 verifies every request. */
    AUTH_TOKEN_CACHE_SIZE: env.nonNegativeInt().default(10_000),
    /** Longest a verified token is trusted without verifying it again (also bounded by its `exp`). */
    AUTH_TOKEN_CACHE_MAX_AGE_MS: env.positiveInt().default(60_000),
    /** Longest message content accepted, in characters (longer -> 413). */
    MAX_MESSAGE_CHARS: env.positiveInt().default(32_000),
    /** Largest request body accepted, in bytes (larger -> 413). */
    MAX_BODY_BYTES: env.positiveInt().default(1024 * 1024),
    /** How long the api waits for a turn; keep it above the orchestrator's TURN_TIMEOUT_MS. */
    TURN_WAIT_MS: env.positiveInt().default(150_000),
    /** Deadline of other gRPC calls (history, health). */
    GRPC_DEADLINE_MS: env.positiveInt().default(10_000),
    /** The built web console served under /console (default: apps/console/dist beside this app); empty: not served. */
    CONSOLE_DIR: z.string().default(fileURLToPath(new URL('../../console/dist', import.meta.url))),
    /** The console's link to a run's trace: a URL with `{traceId}` (e.g. `http://127.0.0.1:16686/trace/{traceId}` for Jaeger); empty: no link. */
    CONSOLE_TRACE_URL_TEMPLATE: z
      .string()
      .refine(
        (t) => t === '' || (/^https?:\/\//i.test(t) && t.includes('{traceId}')),
        'must be an http(s) URL containing {traceId}, or empty',
      )
      .default(''),
    ...shutdownEnv({ graceMs: 30_000 }),
    ...loggingEnv,
  })
  .refine((config) => config.AUTH_JWT_SECRET !== undefined || config.AUTH_JWKS_URL !== undefined, {
    message: 'set AUTH_JWT_SECRET (HS256 tokens) or AUTH_JWKS_URL (RS256/ES256 tokens), or both',
  });
export type ApiConfig = z.infer<typeof ApiConfig>;
