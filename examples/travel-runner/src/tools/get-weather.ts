import { defineTool, type ToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';
import { FAKE_DATA_NOTICE, fakeNumber } from '../fake-data.js';

const CONDITIONS = ['Sunny', 'Partly cloudy', 'Cloudy', 'Light rain', 'Showers', 'Windy'] as const;
const MIN_TEMPERATURE_C = -5;
const TEMPERATURE_SPREAD_C = 36;

export const Forecast = z.object({
  notice: z.string(),
  city: z.string(),
  date: z.string(),
  conditions: z.string(),
  temperatureC: z.number().int(),
  /** e.g. `Sunny, 15°C`. */
  forecast: z.string(),
});
export type Forecast = z.infer<typeof Forecast>;

/** A made-up forecast: the same city and date (in any letter case) always give the same one. */
export function fakeForecast(city: string, date: string): Forecast {
  const seed = [city.trim().toLowerCase(), date.trim().toLowerCase()];
  const conditions = CONDITIONS[fakeNumber(CONDITIONS.length, ...seed, 'conditions')] ?? CONDITIONS[0];
  const temperatureC = MIN_TEMPERATURE_C + fakeNumber(TEMPERATURE_SPREAD_C, ...seed, 'temperature');
  return {
    notice: FAKE_DATA_NOTICE,
    city,
    date,
    conditions,
    temperatureC,
    forecast: `${conditions}, ${temperatureC}°C`,
  };
}

/** `get_weather`: a plain tool (one call, one answer) beside the agent-tools of this runner. */
export function getWeatherTool(): ToolDefinition {
  return defineTool({
    name: 'get_weather',
    description:
      'Weather forecast for a city on a day: conditions and temperature. Example runner: the forecast is made up.',
    input: z.object({
      city: z.string().trim().min(1).max(100).describe('City name, e.g. "New York"'),
      date: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .describe('Day of the forecast as the user said it, e.g. "next Friday" or "2026-12-04"'),
    }),
    output: Forecast,
    timeoutMs: 2_000,
    sideEffect: 'none',
    version: '1.0.0',
    handler: async ({ city, date }) => fakeForecast(city, date),
  });
}
