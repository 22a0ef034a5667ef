import path from 'node:path';
import { ConfigError, loadConfig } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { TravelRunnerConfig } from './config.js';

describe('TravelRunnerConfig', () => {
  it('defaults to local NATS, Redis and credential service and an outbox under the working directory', () => {
    expect(loadConfig(TravelRunnerConfig, {})).toEqual({
      NATS_URL: 'nats://127.0.0.1:4222',
      REDIS_URL: 'redis://127.0.0.1:6379',
      OUTBOX_DIR: path.resolve('.outbox'),
      CREDENTIAL_ADDRESS: '127.0.0.1:50055',
      GRPC_TLS_RELOAD_MS: 60_000,
      GRPC_INSECURE_PLAINTEXT: false,
      SHUTDOWN_GRACE_MS: 10_000,
      LOG_LEVEL: 'info',
    });
  });

  it('names the variable at fault', () => {
    expect(() => loadConfig(TravelRunnerConfig, { LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig(TravelRunnerConfig, { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
