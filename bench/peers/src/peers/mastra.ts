// Mastra: an Agent with one tool (createTool), `generate` over Chat Completions through Mastra's
// own OpenAI-compatible model config (the endpoint's URL and key; Mastra 1.x types AI SDK models
// against its own copy of @ai-sdk/provider, which the workspace's @ai-sdk/openai does not match),
// the per-turn state handed to the tool through its RequestContext. Mastra's
// usage telemetry (PostHog) is turned off: the bench runs offline and measures the agent alone.
// Without memory it keeps nothing (this row); with Memory on a PostgresStore it is the durable row
// (mastra-pg.ts).
import { Agent } from '@mastra/core/agent';
import type { MastraMemory } from '@mastra/core/memory';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { CALCULATOR_DESCRIPTION, CallLog, INSTRUCTIONS, MODEL, PROMPT, verifyTurn } from '../calculator-turn.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

const LOG_KEY = 'calculator-call-log';

/** The calculator agent; with `memory`, each call's thread and messages are stored. */
export function calculatorAgent(endpoint: ModelEndpoint, memory?: MastraMemory): Agent {
  process.env['MASTRA_TELEMETRY_DISABLED'] ??= '1';
  const calculator = createTool({
    id: 'calculator',
    description: CALCULATOR_DESCRIPTION,
    inputSchema: z.object({ expression: z.string() }),
    execute: async (input, { requestContext }) => requestContext.get<string, CallLog>(LOG_KEY).run(input),
  });
  return new Agent({
    id: 'calculator-agent',
    name: 'calculator agent',
    instructions: INSTRUCTIONS,
    model: { providerId: 'llm-sim', modelId: MODEL, url: endpoint.baseURL, apiKey: endpoint.apiKey, api: 'chat' },
    tools: { calculator },
    ...(memory ? { memory } : {}),
  });
}

/** A fresh call log for one turn, in the RequestContext the calculator reads it from. */
export function turnContext(): { log: CallLog; requestContext: RequestContext } {
  const log = new CallLog();
  const requestContext = new RequestContext();
  requestContext.set(LOG_KEY, log);
  return { log, requestContext };
}

export function mastraPeer(endpoint: ModelEndpoint): Peer {
  const agent = calculatorAgent(endpoint);
  return {
    key: 'mastra',
    name: 'Mastra (Agent.generate)',
    async turn() {
      const { log, requestContext } = turnContext();
      const result = await agent.generate(PROMPT, { requestContext, maxSteps: 5 });
      verifyTurn(this.name, log, result.text);
    },
    cpuMs: async () => ownCpuMs(),
  };
}
