// Vercel AI SDK: generateText with one tool, over @ai-sdk/openai's Chat Completions model. The
// turn's call log reaches the tool as its context (AI SDK 7's `contextSchema` / `toolsContext`).
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
      contextSchema: z.object({ log: z.instanceof(CallLog) }),
      execute: async (input, { context }) => context.log.run(input),
    }),
  };
  return {
    key: 'vercel-ai',
    name: 'Vercel AI SDK (generateText)',
    async turn() {
      const log = new CallLog();
      const result = await generateText({
        model,
        tools,
        system: INSTRUCTIONS,
        prompt: PROMPT,
        stopWhen: stepCountIs(5),
        toolsContext: { calculator: { log } },
      });
      verifyTurn(this.name, log, result.text);
    },
    cpuMs: async () => ownCpuMs(),
  };
}
