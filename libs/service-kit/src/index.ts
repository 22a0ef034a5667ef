export { loadConfig, ConfigError, env } from './config.js';
export { createLogger, type Logger, type LoggerOptions } from './logger.js';
export {
  PlatformError,
  isPlatformError,
  errors,
  ErrorKinds,
  type ErrorKind,
  type PlatformErrorOptions,
} from './errors.js';
export {
  codesOf,
  sharedErrorCatalogue,
  SharedErrorCodes,
  type ErrorCodeSpec,
  type ErrorCodesOf,
} from './error-catalogue.js';
export { toGrpcError, fromGrpcError, DEPENDENCY_UNAVAILABLE } from './grpc-status.js';
export { isConnectionLoss } from './connection-loss.js';
export { callAbortSignal, GrpcServer, unaryHandler, type GrpcServerOptions } from './grpc-server.js';
export {
  createGrpcClient,
  type PromiseClient,
  type CallSettings,
  type GrpcClientOptions,
  type GrpcClientHandle,
} from './grpc-client.js';
export { GrpcHealthProbe } from './grpc-health.js';
export {
  grpcTlsEnv,
  compileGrpcTransport,
  openGrpcTransport,
  grpcTransportFromEnv,
  type GrpcTlsEnv,
} from './grpc-tls-config.js';
export { MutualTlsTransport, PlaintextTransport, type GrpcTransport, type MutualTlsFiles } from './grpc-transport.js';
export { ANY_PLATFORM_SERVICE, type CallerTable } from './grpc-callers.js';
export { parseSpiffeId, spiffeId, type ServiceIdentity } from './service-identity.js';
export { GRPC_MAX_MESSAGE_BYTES } from './grpc-limits.js';
export { grpcServerEnv, postgresEnv, shutdownEnv, loggingEnv } from './service-env.js';
export { natsEnv, natsConnectSettings, type NatsEnv, type NatsConnectSettings } from './nats-config.js';
export { connectNats, headerGetter, headerSetter, jsonBody, type NatsConnection, type NatsOptions } from './nats.js';
export { createPgPool, inTransaction, type PostgresOptions, type TransactionOptions } from './postgres.js';
export { jsonbText } from './jsonb.js';
export {
  loadMigrations,
  migrate,
  migrationChecksum,
  MigrationError,
  pinnedMigrationProblems,
  PINNED_MIGRATIONS_FILE,
  type Migration,
} from './migrations.js';
export { createRedis, type Redis, type RedisOptions } from './redis.js';
export { GracefulShutdown, type ShutdownStep, type GracefulShutdownOptions } from './shutdown.js';
export { announceReady } from './ready.js';
export { openServiceDatabase, type ServiceDatabaseOptions } from './service-database.js';
export { runService, type RunServiceOptions, type StartedService } from './run-service.js';
export { RateLimiter, type RateLimitDecision } from './rate-limiter.js';
export { ensureStream, followSubject, lastMessageJson, type StreamSpec } from './jetstream.js';
export { DurableConsumer, type DurableConsumerOptions } from './durable-consumer.js';
export { PublishBatcher } from './publish-batcher.js';
export {
  RuntimeSampler,
  startRuntimeDiagnostics,
  RuntimeDiagnosticsConfig,
  RUNTIME_DIAGNOSTICS_PATH,
  type RuntimeDiagnostics,
  type RuntimeSnapshot,
} from './runtime-diagnostics.js';
export { listenFailure } from './listen-failure.js';
export { quotaExceeded, type QuotaRefusal } from './quota.js';
export { parseOrReject, tenantOf } from './request-fields.js';
