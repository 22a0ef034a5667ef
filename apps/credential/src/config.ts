import { TenantTiersEnv } from '@platform/contracts';
import { egressEnv } from '@platform/egress';
import { env, grpcServerEnv, grpcTlsEnv, loggingEnv, postgresEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the credential service (docs/credentials.md has the operator's view). */
export const CredentialConfig = z.object({
  /** Postgres for requests (DATABASE_URL, DATABASE_POOL_MAX). Its role needs membership in credential_runtime, credential_maintenance and credential_key_lookup. */
  ...postgresEnv(),
  /** Postgres for migrations at boot (the schema owner); defaults to DATABASE_URL. */
  DATABASE_MIGRATION_URL: z.string().optional(),
  /** GRPC_HOST, GRPC_PORT, and GRPC_HEALTH_PORT (plaintext, grpc.health.v1 only, for probes without a certificate; unset: none). */
  ...grpcServerEnv({ port: 50055 }),
  /** GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: mutual TLS with the platform CA (docs/security.md). */
  ...grpcTlsEnv,
  /** The keyring as JSON: `{"active":"k2","keys":{"k1":"<base64 32 bytes>",...}}`. Set this or the file. */
  CREDENTIAL_KEYRING: z.string().optional(),
  /** A mounted file holding the keyring JSON (e.g. a Kubernetes secret volume). */
  CREDENTIAL_KEYRING_FILE: z.string().optional(),
  /** The orchestrator's grant-signing public keys as a JWKS (`{"keys":[...]}`), each with a `kid`. */
  CREDENTIAL_GRANT_PUBLIC_KEYS: z.string().min(1, 'a JWKS with the orchestrator grant public keys is required'),
  /** Bearer tokens of platform callers (the api), comma-separated, 32+ characters each. */
  CREDENTIAL_PLATFORM_TOKENS: env
    .list()
    .pipe(
      z.array(z.string().min(32, 'each platform token must be at least 32 characters')).min(1, 'at least one token'),
    ),
  /** Seconds of clock skew accepted on a grant's `exp` / `iat`. */
  CREDENTIAL_GRANT_CLOCK_TOLERANCE_SECONDS: env.nonNegativeInt().default(5),
  /** Largest secret_json accepted, in bytes. */
  CREDENTIAL_MAX_SECRET_BYTES: env.positiveInt().default(64 * 1024),
  /** Tier limits and quotas as JSON (the same value for every service; here `credentialRecords` and `credentialBytes`), see docs/operations.md. */
  TENANT_TIERS: TenantTiersEnv,
  /** The tier of requests that name none (or one TENANT_TIERS does not define). */
  DEFAULT_TIER: z.string().default('default'),
  /** Audit events one page returns by default, and at most. */
  CREDENTIAL_AUDIT_PAGE_SIZE: env.positiveInt().default(100),
  CREDENTIAL_AUDIT_MAX_PAGE_SIZE: env.positiveInt().default(1_000),
  /** Rows one rewrap batch re-wraps (one transaction); replicas take disjoint batches. */
  CREDENTIAL_REWRAP_BATCH_SIZE: env.positiveInt().default(100),
  /** How often each replica looks for rows wrapped by a non-active key; 0 turns the job off. */
  CREDENTIAL_REWRAP_INTERVAL_MS: env.nonNegativeInt().default(60_000),
  /**
   * Whether a read waits for its audit row to be committed durably before answering. Off by
   * default: a Get's audit row is written in a batch within CREDENTIAL_READ_AUDIT_FLUSH_MS after it
   * answers, and a List commits asynchronously, so a crash can lose the read audit rows of that
   * last window (never a credential, never a save's or delete's audit row).
   */
  CREDENTIAL_DURABLE_READ_AUDIT: env.boolean().default(false),
  /** Longest a Get's audit row waits for its batch (milliseconds). */
  CREDENTIAL_READ_AUDIT_FLUSH_MS: env.nonNegativeInt().default(5),
  /** Read audit rows queued at most (a database outage); beyond them a Get waits for its row's commit. */
  CREDENTIAL_READ_AUDIT_MAX_QUEUED: env.positiveInt().default(10_000),
  /**
   * Model connection base URLs reach public addresses only (libs/egress, checked on every write);
   * EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS admit deliberate internal endpoints (docs/security.md).
   * Keep them equal to the orchestrator's, which vets the same URLs again when it connects.
   */
  ...egressEnv,
  ...shutdownEnv(),
  ...loggingEnv,
});
export type CredentialConfig = z.infer<typeof CredentialConfig>;
