import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, env, loadConfig } from './config.js';

const Config = z.object({
  PORT: env.port().default(8080),
  NATS_URL: env.url(),
  FEATURE_ON: env.boolean().default(false),
  HOSTS: env.list().default([]),
});

describe('loadConfig', () => {
  it('applies defaults and coerces values', () => {
    const config = loadConfig(Config, { NATS_URL: 'nats://127.0.0.1:4222', FEATURE_ON: 'YES', HOSTS: 'a.com, b.com,' });
    expect(config).toEqual({
      PORT: 8080,
      NATS_URL: 'nats://127.0.0.1:4222',
      FEATURE_ON: true,
      HOSTS: ['a.com', 'b.com'],
    });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(Config, { NATS_URL: 'nats://x:1', PORT: '' }).PORT).toBe(8080);
  });

  it('names every offending variable and what was wrong', () => {
    const error = (() => {
      try {
        loadConfig(Config, { PORT: 'eighty', FEATURE_ON: 'maybe' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((p) => p.variable).sort();
    expect(problems).toEqual(['FEATURE_ON', 'NATS_URL', 'PORT']);
    expect((error as Error).message).toMatch(/PORT: /);
  });

  it('ignores variables the schema does not name', () => {
    expect(() => loadConfig(Config, { NATS_URL: 'nats://x:1', UNRELATED: '1' })).not.toThrow();
  });
});
