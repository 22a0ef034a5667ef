// Vercel AI SDK: generateText with one tool, over @ai-sdk/openai's Chat Completions model.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { CALCULATOR_DESCRIPTION, CallLog, INSTRUCTIONS, MODEL, PROMPT, verifyTurn } from '../calculator-turn.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

export function vercelAiPeer(endpoint: ModelEndpoint): Peer {
  const model = createOpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey }).chat(MODEL);
  const tools = {
    calculator: tool({
      description: CALCULATOR_DESCRIPTION,
      inputSchema: z.object({ expression: z.string() }),
      execute: async (input, { experimental_context }) => (experimental_context as CallLog).run(input),
    }),
  };
  return {
    key: 'vercel-ai',
    name: 'Vercel AI SDK (generateText)',
    async turn() {
      const log = new CallLog();
      const result = await generateText({ model, tools, system: INSTRUCTIONS, prompt: PROMPT, stopWhen: stepCountIs(5), experimental_context: log });
      verifyTurn(this.name, log, result.text);
    },
    cpuMs: async () => ownCpuMs(),
  };
}
