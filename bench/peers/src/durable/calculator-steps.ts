// The calculator turn as a hand-written loop over the OpenAI SDK (Chat Completions), each model
// call and each tool call one durable step of the engine that runs it: DBOS's `runStep`, Restate's
// `ctx.run`. DBOS and Restate are durable-execution engines, not agent frameworks; this is how
// their users write an agent on them (their own examples do the same with the OpenAI SDK).
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { CALCULATOR_DESCRIPTION, INSTRUCTIONS, MODEL, PROMPT, type CallLog } from '../calculator-turn.js';
import type { ModelEndpoint } from '../peer.js';

/** Runs `fn` as one durable step named `name` and returns its (journaled) result. */
type DurableStep = <T>(name: string, fn: () => Promise<T>) => Promise<T>;

/** The steps a turn of the scenario takes: model, calculator, model. */
export const STEPS_PER_TURN = 3;
const MAX_MODEL_CALLS = 5;

const CALCULATOR_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'calculator',
    description: CALCULATOR_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
      additionalProperties: false,
    },
  },
};

/** The model client and the per-turn call logs of one durable peer (the tool finds its turn's log by id). */
export class CalculatorSteps {
  readonly logs = new Map<string, CallLog>();
  private readonly client: OpenAI;

  constructor(endpoint: ModelEndpoint) {
    this.client = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey });
  }

  /** The turn's body, for the engine's workflow or handler: returns the model's final answer. */
  async run(turnId: string, step: DurableStep): Promise<string> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: PROMPT },
    ];
    for (let call = 0; call < MAX_MODEL_CALLS; call++) {
      const history = [...messages];
      const message = await step(`model ${call + 1}`, async () => {
        const completion = await this.client.chat.completions.create({
          model: MODEL,
          messages: history,
          tools: [CALCULATOR_TOOL],
        });
        const choice = completion.choices[0];
        if (!choice) throw new Error('the model answered no choice');
        return { content: choice.message.content, tool_calls: choice.message.tool_calls ?? [] };
      });
      if (message.tool_calls.length === 0) return message.content ?? '';
      messages.push({ role: 'assistant', content: message.content, tool_calls: message.tool_calls });
      for (const toolCall of message.tool_calls) {
        if (toolCall.type !== 'function') throw new Error(`unexpected tool call type ${toolCall.type}`);
        const { name, arguments: args } = toolCall.function;
        const content = await step(`tool ${name}`, async () => this.tool(turnId, name, args));
        messages.push({ role: 'tool', tool_call_id: toolCall.id, content });
      }
    }
    throw new Error(`no final answer after ${MAX_MODEL_CALLS} model calls`);
  }

  private tool(turnId: string, name: string, args: string): string {
    if (name !== 'calculator') throw new Error(`unknown tool ${name}`);
    const log = this.logs.get(turnId);
    if (!log) throw new Error(`no call log for turn ${turnId}`);
    return JSON.stringify(log.run(JSON.parse(args)));
  }
}
