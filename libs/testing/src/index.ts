export { binaries, locateBinary } from './binaries.js';
export { ManagedProcess } from './managed-process.js';
export { freePort, waitForPort } from './ports.js';
export { startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats-server.js';
export { startPostgresServer, type PostgresDurability, type PostgresServerHandle } from './postgres-server.js';
export { startRedisServer, type RedisServerHandle } from './redis-server.js';
export { startInfra, type Infra } from './infra.js';
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
} from './service-process.js';
export {
  startPlatform,
  generateCredentialKeys,
  PLATFORM_APPS,
  type Platform,
  type PlatformApp,
  type PlatformOptions,
} from './platform.js';
export { percentile, median } from './stats.js';
export { startFaultProxy, type FaultProxy } from './fault-proxy.js';
export { createServicePki, sharedServicePki, testCertificates } from './service-pki.js';
export { callerRoutedClient } from './caller-routed-client.js';
export { staleDocTables, writeDocTables, type DocTable } from './doc-tables.js';
export { startA2aTestAgent, type A2aTestAgent } from './a2a-test-agent.js';
