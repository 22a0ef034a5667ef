// Mastra: an Agent with one tool (createTool), `generate` over an AI SDK v5 Chat Completions model
// (@ai-sdk/openai), the per-turn state handed to the tool through its RuntimeContext.
import { createOpenAI } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import { RuntimeContext } from '@mastra/core/runtime-context';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { CALCULATOR_DESCRIPTION, CallLog, INSTRUCTIONS, MODEL, PROMPT, verifyTurn } from '../calculator-turn.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

const LOG_KEY = 'calculator-call-log';

export function mastraPeer(endpoint: ModelEndpoint): Peer {
  const calculator = createTool({
    id: 'calculator',
    description: CALCULATOR_DESCRIPTION,
    inputSchema: z.object({ expression: z.string() }),
    execute: async ({ context, runtimeContext }) => runtimeContext.get<string, CallLog>(LOG_KEY).run(context),
  });
  const agent = new Agent({
    name: 'calculator agent',
    instructions: INSTRUCTIONS,
    model: createOpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey }).chat(MODEL),
    tools: { calculator },
  });
  return {
    key: 'mastra',
    name: 'Mastra (Agent.generate)',
    async turn() {
      const log = new CallLog();
      const runtimeContext = new RuntimeContext();
      runtimeContext.set(LOG_KEY, log);
      const result = await agent.generate(PROMPT, { runtimeContext, maxSteps: 5 });
      verifyTurn(this.name, log, result.text);
    },
    cpuMs: async () => ownCpuMs(),
  };
}
