import { compileEgressAllowlist, EgressGuard } from '@platform/egress';
import { credentialV1 } from '@platform/proto';
import { createPgPool, GrpcServer, openGrpcTransport, openServiceDatabase, type Logger } from '@platform/service-kit';
import type pg from 'pg';
import { fileURLToPath } from 'node:url';
import { CallerAuth } from './caller-auth.js';
import type { CredentialConfig } from './config.js';
import { CREDENTIAL_CALLERS } from './grpc-callers.js';
import { CredentialDatabase } from './credential-database.js';
import { credentialServiceImplementation, type CredentialServiceLimits } from './credential-service.js';
import { CredentialStore } from './credential-store.js';
import { ReadAuditBatcher } from './read-audit-batcher.js';
import { ApiKeyStore } from './api-key-store.js';
import { AdminAuditStore } from './admin-audit-store.js';
import type { KeyProvider } from './crypto/key-provider.js';
import { LocalKeyring } from './crypto/local-keyring.js';
import { assertKeyringCoversRows, startRewrapJob } from './key-rotation.js';
import { modelConnectionServiceImplementation } from './model-connections/model-connection-service.js';
import { ModelConnectionStore } from './model-connections/model-connection-store.js';

export const CREDENTIAL_SCHEMA = 'credential';
const CREDENTIAL_SERVICE_NAME = 'credential.v1.CredentialService';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** A started credential service: migrated database, keyring checked against the rows, gRPC listening. */
export interface CredentialServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** Migrates with the owner's connection, then serves with the runtime one (which may be another role). */
async function openPool(config: CredentialConfig, logger: Logger): Promise<pg.Pool> {
  const common = { schema: CREDENTIAL_SCHEMA, migrationsDir, applicationName: 'credential', logger };
  if (!config.DATABASE_MIGRATION_URL || config.DATABASE_MIGRATION_URL === config.DATABASE_URL) {
    return openServiceDatabase({ ...common, url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_MAX });
  }
  await (await openServiceDatabase({ ...common, url: config.DATABASE_MIGRATION_URL, maxConnections: 1 })).end();
  return createPgPool({
    url: config.DATABASE_URL,
    applicationName: 'credential',
    searchPath: CREDENTIAL_SCHEMA,
    maxConnections: config.DATABASE_POOL_MAX,
    logger,
  });
}

/**
 * Starts the service. The key provider defaults to the local keyring from the environment;
 * boot fails (naming the key id) when a stored row needs a key the provider lacks.
 */
/** What the gRPC edge accepts and returns at most, from its environment variables. */
function compileServiceLimits(config: CredentialConfig): CredentialServiceLimits {
  return {
    maxSecretBytes: config.CREDENTIAL_MAX_SECRET_BYTES,
    auditPageSize: config.CREDENTIAL_AUDIT_PAGE_SIZE,
    auditMaxPageSize: config.CREDENTIAL_AUDIT_MAX_PAGE_SIZE,
  };
}

export async function startCredentialServer(
  config: CredentialConfig,
  logger: Logger,
  keys?: KeyProvider,
): Promise<CredentialServer> {
  const keyProvider =
    keys ?? LocalKeyring.load({ json: config.CREDENTIAL_KEYRING, file: config.CREDENTIAL_KEYRING_FILE });
  const auth = new CallerAuth({
    grantPublicKeys: config.CREDENTIAL_GRANT_PUBLIC_KEYS,
    platformTokens: config.CREDENTIAL_PLATFORM_TOKENS,
    clockToleranceSeconds: config.CREDENTIAL_GRANT_CLOCK_TOLERANCE_SECONDS,
  });
  const pool = await openPool(config, logger);
  try {
    const db = new CredentialDatabase(pool, { durableReadAudit: config.CREDENTIAL_DURABLE_READ_AUDIT });
    await assertKeyringCoversRows(db, keyProvider);
    const readAudit = new ReadAuditBatcher(pool, {
      durable: config.CREDENTIAL_DURABLE_READ_AUDIT,
      flushDelayMs: config.CREDENTIAL_READ_AUDIT_FLUSH_MS,
      maxQueuedRows: config.CREDENTIAL_READ_AUDIT_MAX_QUEUED,
      logger,
    });
    const store = new CredentialStore(db, keyProvider, readAudit);
    const grpc = new GrpcServer({
      host: config.GRPC_HOST,
      port: config.GRPC_PORT,
      healthPort: config.GRPC_HEALTH_PORT,
      transport: openGrpcTransport(config, logger),
      logger,
    });
    // Model connection base URLs are checked on every write (docs/security.md, egress).
    const egress = new EgressGuard({ allowlist: compileEgressAllowlist(config) });
    const tiers = { tiers: config.TENANT_TIERS, defaultTier: config.DEFAULT_TIER };
    // Typed as the whole service, so a method of the proto that nobody implements does not compile.
    const implementation: credentialV1.CredentialServiceServer = {
      ...credentialServiceImplementation({
        store,
        access: { keys: new ApiKeyStore(db), audit: new AdminAuditStore(db) },
        db,
        readAudit,
        keys: keyProvider,
        auth,
        limits: compileServiceLimits(config),
        tiers,
        logger,
      }),
      ...modelConnectionServiceImplementation({
        store: new ModelConnectionStore(db, keyProvider),
        auth,
        egress,
        tiers,
        logger,
      }),
    };
    grpc.addService(CREDENTIAL_SERVICE_NAME, credentialV1.CredentialServiceService, implementation, CREDENTIAL_CALLERS);
    const port = await grpc.start();
    const rewrap = startRewrapJob(db, keyProvider, {
      batchSize: config.CREDENTIAL_REWRAP_BATCH_SIZE,
      intervalMs: config.CREDENTIAL_REWRAP_INTERVAL_MS,
      logger,
    });
    logger.info({ activeKeyId: keyProvider.activeKeyId, keyIds: keyProvider.keyIds() }, 'credential keyring loaded');
    return {
      port,
      async stop() {
        await grpc.stop(config.SHUTDOWN_GRACE_MS);
        await readAudit.close();
        await rewrap.stop();
        await egress.close();
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end();
    throw err;
  }
}
