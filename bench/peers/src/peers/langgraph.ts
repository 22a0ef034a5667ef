// LangGraph.js: the prebuilt createReactAgent with one tool, over @langchain/openai's ChatOpenAI.
// Without a checkpointer it keeps nothing (this row); with PostgresSaver it is the durable row
// (langgraph-postgres.ts).
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { CALCULATOR_DESCRIPTION, CallLog, INSTRUCTIONS, MODEL, PROMPT, verifyTurn } from '../calculator-turn.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

/** The calculator agent; `checkpointer` makes every step of a thread a checkpoint. */
export function calculatorReactAgent(endpoint: ModelEndpoint, checkpointer?: BaseCheckpointSaver) {
  const llm = new ChatOpenAI({ model: MODEL, apiKey: endpoint.apiKey, configuration: { baseURL: endpoint.baseURL } });
  const calculator = tool(
    async (input, config) => JSON.stringify((config.configurable as { log: CallLog }).log.run(input)),
    {
      name: 'calculator',
      description: CALCULATOR_DESCRIPTION,
      schema: z.object({ expression: z.string() }),
    },
  );
  return createReactAgent({
    llm,
    tools: [calculator],
    prompt: INSTRUCTIONS,
    ...(checkpointer ? { checkpointer } : {}),
  });
}

export function langGraphPeer(endpoint: ModelEndpoint): Peer {
  const agent = calculatorReactAgent(endpoint);
  return {
    key: 'langgraph',
    name: 'LangGraph.js (createReactAgent)',
    async turn() {
      const log = new CallLog();
      const state = await agent.invoke({ messages: [{ role: 'user', content: PROMPT }] }, { configurable: { log } });
      verifyTurn(this.name, log, state.messages.at(-1)?.content);
    },
    cpuMs: async () => ownCpuMs(),
  };
}
