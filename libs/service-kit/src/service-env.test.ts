import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from './config.js';
import { grpcServerEnv, loggingEnv, postgresEnv, shutdownEnv } from './service-env.js';

const Schema = z.object({ ...grpcServerEnv({ port: 50099 }), ...postgresEnv(), ...shutdownEnv(), ...loggingEnv });

describe('shared service env fragments', () => {
  it('apply their defaults', () => {
    expect(loadConfig(Schema, {})).toEqual({
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: 50099,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/platform',
      DATABASE_POOL_MAX: 10,
      SHUTDOWN_GRACE_MS: 10_000,
      LOG_LEVEL: 'info',
    });
  });

  it('take a service default where services differ', () => {
    const config = loadConfig(z.object({ ...postgresEnv({ poolMax: 20 }), ...shutdownEnv({ graceMs: 30_000 }) }), {});
    expect(config).toEqual({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/platform',
      DATABASE_POOL_MAX: 20,
      SHUTDOWN_GRACE_MS: 30_000,
    });
  });

  it('read the variables and name the one at fault', () => {
    const config = loadConfig(Schema, { GRPC_PORT: '0', GRPC_HEALTH_PORT: '8081', LOG_LEVEL: 'debug' });
    expect(config).toMatchObject({ GRPC_PORT: 0, GRPC_HEALTH_PORT: 8081, LOG_LEVEL: 'debug' });
    expect(() => loadConfig(Schema, { DATABASE_POOL_MAX: '0' })).toThrow(ConfigError);
    expect(() => loadConfig(Schema, { SHUTDOWN_GRACE_MS: 'soon' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });
});
