import { z } from 'zod';
import { env } from './config.js';

/*
 * The settings most services share, spread into a service's config schema beside `natsEnv` and
 * `grpcTlsEnv` (`z.object({ ...grpcServerEnv({ port: 50051 }), ...postgresEnv(), ... })`). Where
 * services differ in a default, the service passes its own.
 */

/** Where a gRPC service listens; `port` is the service's default GRPC_PORT. */
export function grpcServerEnv(defaults: { port: number }) {
  return {
    GRPC_HOST: z.string().default('127.0.0.1'),
    GRPC_PORT: env.port().default(defaults.port),
    /** A plaintext port serving only grpc.health.v1, for probes that present no certificate (unset: none). */
    GRPC_HEALTH_PORT: env.port().optional(),
  };
}

/** The service's Postgres: its URL and the connections one replica opens at most (default 10). */
export function postgresEnv(defaults: { poolMax?: number } = {}) {
  return {
    DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/platform'),
    DATABASE_POOL_MAX: env.positiveInt().default(defaults.poolMax ?? 10),
  };
}

/** How long in-flight work may finish after SIGTERM, in milliseconds (default 10 s). */
export function shutdownEnv(defaults: { graceMs?: number } = {}) {
  return {
    SHUTDOWN_GRACE_MS: env.positiveInt().default(defaults.graceMs ?? 10_000),
  };
}

/** The pino log level (default `info`). */
export const loggingEnv = {
  LOG_LEVEL: env.logLevel().default('info'),
};
