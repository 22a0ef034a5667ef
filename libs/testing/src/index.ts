export { binaries, locateBinary, MissingBinaryError, type ServerBinary } from './binaries.js';
export { ManagedProcess } from './managed-process.js';
export { freePort, waitForPort } from './ports.js';
export { startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats-server.js';
export {
  startPostgresServer,
  pgvectorInstalled,
  extensionAvailable,
  POSTGRES_DURABILITY_SETTINGS,
  type PostgresDurability,
  type PostgresServerHandle,
  type PostgresServerOptions,
} from './postgres-server.js';
export { startRedisServer, REDIS_DATABASES, type RedisServerHandle } from './redis-server.js';
export { startInfra, type Infra, type InfraDescriptor, type InfraOptions } from './infra.js';
export {
  startOtlpCollector,
  type CollectedMetricPoint,
  type CollectedSpan,
  type OtlpCollector,
} from './otlp-collector.js';
export {
  startServiceProcess,
  workspaceRoot,
  type ServiceProcess,
  type ServiceProcessOptions,
  type ServiceMode,
  type ReadyLine,
} from './service-process.js';
export {
  startPlatform,
  generateCredentialKeys,
  PLATFORM_APPS,
  type Platform,
  type PlatformApp,
  type PlatformPort,
  type PlatformOptions,
  type CredentialKeys,
} from './platform.js';
export { percentile, median } from './stats.js';
export { startFaultProxy, type FaultProxy, type FaultProxyOptions } from './fault-proxy.js';
export {
  createServicePki,
  sharedServicePki,
  testCertificates,
  LOCAL_TRUST_DOMAIN,
  type ServicePki,
  type ServicePkiOptions,
  type ServiceCertificateFiles,
} from './service-pki.js';
export { callerRoutedClient } from './caller-routed-client.js';
export { staleDocTables, writeDocTables, type DocTable } from './doc-tables.js';
