// OpenAI Agents JS: `run` of an Agent with one function tool, over Chat Completions (the provider's
// Responses API is not what llm-sim serves) and with tracing off (its exporter would call OpenAI).
import { Agent, OpenAIProvider, Runner, tool, type RunContext } from '@openai/agents';
import { z } from 'zod';
import { CALCULATOR_DESCRIPTION, CallLog, INSTRUCTIONS, MODEL, PROMPT, verifyTurn } from '../calculator-turn.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

export function openaiAgentsPeer(endpoint: ModelEndpoint): Peer {
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, useResponses: false }),
    tracingDisabled: true,
  });
  const calculator = tool({
    name: 'calculator',
    description: CALCULATOR_DESCRIPTION,
    parameters: z.object({ expression: z.string() }),
    execute: async (input, context?: RunContext<CallLog>) => JSON.stringify(context!.context.run(input)),
  });
  const agent = new Agent<CallLog>({
    name: 'calculator agent',
    instructions: INSTRUCTIONS,
    model: MODEL,
    tools: [calculator],
  });
  return {
    key: 'openai-agents',
    name: 'OpenAI Agents JS (run)',
    async turn() {
      const log = new CallLog();
      const result = await runner.run(agent, PROMPT, { context: log });
      verifyTurn(this.name, log, result.finalOutput);
    },
    cpuMs: async () => ownCpuMs(),
  };
}
