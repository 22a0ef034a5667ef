import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { loadLlmSimConfig, optionsFromConfig } from './config.js';
import { DEFAULT_SCENARIOS_DIR } from './scenario-store.js';

describe('config', () => {
  it('has defaults for everything', () => {
    const config = loadLlmSimConfig({});
    expect(config).toEqual({
      LLM_SIM_HOST: '127.0.0.1',
      LLM_SIM_PORT: 4010,
      LLM_SIM_SCENARIOS_DIR: DEFAULT_SCENARIOS_DIR,
      LLM_SIM_DEFAULT_SCENARIO: 'demo',
      LLM_SIM_API_KEY: undefined,
      LLM_SIM_MODELS: ['sim-1', 'sim-large'],
      LLM_SIM_EMBEDDING_MODELS: ['sim-embed-1'],
      LLM_SIM_EMBEDDING_DIMENSIONS: 256,
      LLM_SIM_REQUEST_LOG_SIZE: 200,
      LLM_SIM_DELAY_MS: 0,
      LLM_SIM_LATENCY_MEDIAN_MS: undefined,
      LLM_SIM_LATENCY_P99_MS: undefined,
      LLM_SIM_LATENCY_SEED: 1,
      LLM_SIM_TOKENS_PER_SECOND: undefined,
      LOG_LEVEL: 'info',
    });
    expect(optionsFromConfig(config).latency).toEqual({ delayMs: 0, distribution: null, tokensPerSecond: null });
  });

  it('reads the model latency: a fixed delay, a log-normal distribution and a token rate', () => {
    const config = loadLlmSimConfig({
      LLM_SIM_DELAY_MS: '20',
      LLM_SIM_LATENCY_MEDIAN_MS: '2500',
      LLM_SIM_LATENCY_P99_MS: '8000',
      LLM_SIM_LATENCY_SEED: '9',
      LLM_SIM_TOKENS_PER_SECOND: '60',
    });
    expect(optionsFromConfig(config).latency).toEqual({
      delayMs: 20,
      distribution: { medianMs: 2500, p99Ms: 8000, seed: 9 },
      tokensPerSecond: 60,
    });
  });

  it('refuses half a distribution, or a p99 under the median', () => {
    expect(() => loadLlmSimConfig({ LLM_SIM_LATENCY_MEDIAN_MS: '2500' })).toThrow(/LLM_SIM_LATENCY_P99_MS/);
    expect(() => loadLlmSimConfig({ LLM_SIM_LATENCY_P99_MS: '2500' })).toThrow(/LLM_SIM_LATENCY_MEDIAN_MS/);
    expect(() => loadLlmSimConfig({ LLM_SIM_LATENCY_MEDIAN_MS: '2500', LLM_SIM_LATENCY_P99_MS: '2000' })).toThrow(
      /LLM_SIM_LATENCY_P99_MS/,
    );
    expect(() => loadLlmSimConfig({ LLM_SIM_TOKENS_PER_SECOND: '0' })).toThrow(/LLM_SIM_TOKENS_PER_SECOND/);
  });

  it('defaults the scenarios directory to the shipped scenarios/ folder', () => {
    expect(existsSync(join(DEFAULT_SCENARIOS_DIR, 'demo.json'))).toBe(true);
    expect(DEFAULT_SCENARIOS_DIR.replaceAll('\\', '/')).toMatch(/apps\/llm-sim\/scenarios\/?$/);
  });

  it('reads overrides from the environment', () => {
    const config = loadLlmSimConfig({
      LLM_SIM_PORT: '0',
      LLM_SIM_MODELS: 'a, b ,c',
      LLM_SIM_API_KEY: 'sk-secret',
      LLM_SIM_REQUEST_LOG_SIZE: '5',
      LLM_SIM_EMBEDDING_MODELS: 'text-embedding-3-small',
      LLM_SIM_EMBEDDING_DIMENSIONS: '1536',
      LOG_LEVEL: 'debug',
    });
    expect(optionsFromConfig(config)).toMatchObject({
      port: 0,
      models: ['a', 'b', 'c'],
      apiKey: 'sk-secret',
      requestLogSize: 5,
      embeddingModels: ['text-embedding-3-small'],
      embeddingDimensions: 1536,
    });
  });

  it('names the variable at fault', () => {
    expect(() => loadLlmSimConfig({ LLM_SIM_PORT: 'http' })).toThrow(ConfigError);
    expect(() => loadLlmSimConfig({ LLM_SIM_MODELS: ' , ' })).toThrow(/LLM_SIM_MODELS/);
    expect(() => loadLlmSimConfig({ LLM_SIM_EMBEDDING_DIMENSIONS: '0' })).toThrow(/LLM_SIM_EMBEDDING_DIMENSIONS/);
    expect(() => loadLlmSimConfig({ LLM_SIM_EMBEDDING_DIMENSIONS: '20000' })).toThrow(/LLM_SIM_EMBEDDING_DIMENSIONS/);
  });
});
