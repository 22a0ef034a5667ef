import { env, loadConfig, loggingEnv } from '@platform/service-kit';
import { z } from 'zod';
import { MAX_SAMPLED_DELAY_MS } from './latency-distribution.js';
import { MAX_TOKENS_PER_SECOND } from './latency-setting.js';
import { DEFAULT_SCENARIOS_DIR } from './scenario-store.js';
import type { LlmSimOptions } from './server.js';

/** Environment variables of the simulator; keys are the variable names. */
export const LlmSimConfigSchema = z
  .object({
    LLM_SIM_HOST: z.string().min(1).default('127.0.0.1'),
    LLM_SIM_PORT: env.port().default(4010),
    LLM_SIM_SCENARIOS_DIR: z.string().min(1).default(DEFAULT_SCENARIOS_DIR),
    LLM_SIM_DEFAULT_SCENARIO: z.string().min(1).default('demo'),
    LLM_SIM_API_KEY: z.string().min(1).optional(),
    LLM_SIM_MODELS: env
      .list()
      .refine((models) => models.length > 0, 'needs at least one model id')
      .default(['sim-1', 'sim-large']),
    LLM_SIM_EMBEDDING_MODELS: env
      .list()
      .refine((models) => models.length > 0, 'needs at least one model id')
      .default(['sim-embed-1']),
    LLM_SIM_EMBEDDING_DIMENSIONS: env.positiveInt().max(16_000).default(256),
    LLM_SIM_REQUEST_LOG_SIZE: env.nonNegativeInt().default(200),
    LLM_SIM_DELAY_MS: env.nonNegativeInt().max(60_000).default(0),
    LLM_SIM_LATENCY_MEDIAN_MS: env.positiveInt().max(MAX_SAMPLED_DELAY_MS).optional(),
    LLM_SIM_LATENCY_P99_MS: env.positiveInt().max(MAX_SAMPLED_DELAY_MS).optional(),
    LLM_SIM_LATENCY_SEED: env.nonNegativeInt().max(0xffff_ffff).default(1),
    LLM_SIM_TOKENS_PER_SECOND: env.positiveInt().max(MAX_TOKENS_PER_SECOND).optional(),
    ...loggingEnv,
  })
  .superRefine((config, ctx) => {
    const median = config.LLM_SIM_LATENCY_MEDIAN_MS;
    const p99 = config.LLM_SIM_LATENCY_P99_MS;
    if ((median === undefined) !== (p99 === undefined)) {
      const missing = median === undefined ? 'LLM_SIM_LATENCY_MEDIAN_MS' : 'LLM_SIM_LATENCY_P99_MS';
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: 'set both LLM_SIM_LATENCY_MEDIAN_MS and LLM_SIM_LATENCY_P99_MS, or neither',
      });
    } else if (median !== undefined && p99 !== undefined && p99 < median) {
      ctx.addIssue({
        code: 'custom',
        path: ['LLM_SIM_LATENCY_P99_MS'],
        message: 'must be at least LLM_SIM_LATENCY_MEDIAN_MS',
      });
    }
  });

/** Parsed simulator configuration. */
export type LlmSimConfig = z.infer<typeof LlmSimConfigSchema>;

/** Reads the configuration from the environment; throws `ConfigError` naming bad variables. */
export function loadLlmSimConfig(source: NodeJS.ProcessEnv = process.env): LlmSimConfig {
  return loadConfig(LlmSimConfigSchema, source);
}

/** Maps environment configuration onto {@link LlmSimOptions} (the logger is supplied separately). */
export function optionsFromConfig(config: LlmSimConfig): Omit<LlmSimOptions, 'logger'> {
  return {
    host: config.LLM_SIM_HOST,
    port: config.LLM_SIM_PORT,
    scenariosDir: config.LLM_SIM_SCENARIOS_DIR,
    defaultScenario: config.LLM_SIM_DEFAULT_SCENARIO,
    apiKey: config.LLM_SIM_API_KEY,
    models: config.LLM_SIM_MODELS,
    embeddingModels: config.LLM_SIM_EMBEDDING_MODELS,
    embeddingDimensions: config.LLM_SIM_EMBEDDING_DIMENSIONS,
    requestLogSize: config.LLM_SIM_REQUEST_LOG_SIZE,
    latency: {
      delayMs: config.LLM_SIM_DELAY_MS,
      distribution:
        config.LLM_SIM_LATENCY_MEDIAN_MS !== undefined && config.LLM_SIM_LATENCY_P99_MS !== undefined
          ? {
              medianMs: config.LLM_SIM_LATENCY_MEDIAN_MS,
              p99Ms: config.LLM_SIM_LATENCY_P99_MS,
              seed: config.LLM_SIM_LATENCY_SEED,
            }
          : null,
      tokensPerSecond: config.LLM_SIM_TOKENS_PER_SECOND ?? null,
    },
  };
}
