import type { AgentToolDefinition, ToolDefinition } from '@platform/tool-sdk';
import type { Outbox } from '../outbox.js';
import { flightSearchAgent } from './flight-search.js';
import { getWeatherTool } from './get-weather.js';
import { sendEmailAgent } from './send-email.js';
import { weatherDigestExecutor } from './weather-digest.js';

/** What this runner serves: plain tools and agent-tools side by side, as in seed 000 section 4.2, and a custom executor of trigger tasks. */
export interface TravelTools {
  tools: ToolDefinition[];
  agents: AgentToolDefinition[];
}

export function travelTools(outbox: Outbox): TravelTools {
  return { tools: [getWeatherTool(), weatherDigestExecutor()], agents: [flightSearchAgent(), sendEmailAgent(outbox)] };
}
