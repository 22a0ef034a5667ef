export { binaries, locateBinary, MissingBinaryError, type ServerBinary } from './binaries.js';
export { ManagedProcess } from './managed-process.js';
export { freePort, waitForPort } from './ports.js';
export { startNatsServer, type NatsServerHandle } from './nats-server.js';
export { startPostgresServer, type PostgresServerHandle } from './postgres-server.js';
export { startRedisServer, REDIS_DATABASES, type RedisServerHandle } from './redis-server.js';
export { startInfra, type Infra, type InfraDescriptor } from './infra.js';
export { startOtlpCollector, type CollectedSpan, type OtlpCollector } from './otlp-collector.js';
