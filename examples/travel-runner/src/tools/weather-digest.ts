import { defineTool, type ToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';
import { fakeForecast } from './get-weather.js';

/**
 * `weather_digest`: a custom executor of trigger tasks (docs/triggers.md, "Executors"), declared
 * one with `executor: true` so a task may name it as its `executor`. Each fire gets the forecasts
 * of the task's configured cities for the configured day; no model is involved. It reads only, so
 * a repeated fire (same fire id) is harmless.
 */
export function weatherDigestExecutor(): ToolDefinition {
  return defineTool({
    name: 'weather_digest',
    description: 'Trigger executor: the forecasts of the cities in the task config (example runner: made up).',
    input: z
      .object({
        fireId: z.string(),
        config: z.object({
          cities: z.array(z.string().trim().min(1).max(100)).min(1).max(20),
          date: z.string().trim().min(1).max(100).default('today'),
        }),
      })
      .passthrough(),
    timeoutMs: 2_000,
    sideEffect: 'none',
    executor: true,
    version: '1.0.0',
    handler: async ({ config }) => ({ forecasts: config.cities.map((city) => fakeForecast(city, config.date)) }),
  });
}
