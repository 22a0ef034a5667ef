// Our engine in process: libs/agent-loop's runAgentLoop with the real libs/llm model client
// (OpenAIChatModel over its keep-alive pool) and an in-process tool port holding the calculator:
// the library-to-library comparison (no services, no journal, no network but the model's).
import {
  compileLoopConfig,
  runAgentLoop,
  type ToolCallContext,
  type ToolCallRequest,
  type ToolDescription,
  type ToolOutcome,
  type ToolPort,
} from '@platform/agent-loop';
import { OpenAIChatModel } from '@platform/llm';
import { z } from 'zod';
import { CALCULATOR_DESCRIPTION, CallLog, INSTRUCTIONS, MODEL, PROMPT, verifyTurn } from '../calculator-turn.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

const CalculatorInput = z.object({ expression: z.string() });

/** The calculator as a tool port; each run's calls go to that run's log. */
class InProcessCalculatorPort implements ToolPort {
  readonly logs = new Map<string, CallLog>();
  private readonly tools: ToolDescription[] = [
    {
      name: 'calculator',
      description: CALCULATOR_DESCRIPTION,
      parameters: z.toJSONSchema(CalculatorInput),
      kind: 'tool',
      sideEffect: 'none',
    },
  ];

  list(): ToolDescription[] {
    return this.tools;
  }

  async execute(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    if (call.name !== 'calculator')
      return { status: 'invalid', content: `unknown tool ${call.name}`, errorCode: 'UNKNOWN_TOOL' };
    const input = CalculatorInput.safeParse(call.arguments);
    if (!input.success) return { status: 'invalid', content: input.error.message, errorCode: 'INVALID_ARGUMENTS' };
    try {
      return { status: 'success', content: JSON.stringify(this.logs.get(context.runId)!.run(input.data)) };
    } catch (error) {
      return { status: 'failed', content: (error as Error).message, errorCode: 'TOOL_FAILED' };
    }
  }
}

export function ourEnginePeer(endpoint: ModelEndpoint): Peer {
  const model = new OpenAIChatModel({
    baseURL: endpoint.baseURL,
    apiKey: endpoint.apiKey,
    model: MODEL,
    timeoutMs: 60_000,
  });
  const tools = new InProcessCalculatorPort();
  const config = compileLoopConfig({});
  let runs = 0;
  return {
    key: 'our-engine',
    name: 'our engine (agent-loop + llm, in process)',
    async turn() {
      const runId = `bench-${++runs}`;
      const log = new CallLog();
      tools.logs.set(runId, log);
      try {
        const result = await runAgentLoop(
          {
            runId,
            messages: [
              { role: 'system', content: INSTRUCTIONS },
              { role: 'user', content: PROMPT },
            ],
          },
          { model, tools, config },
        );
        if (result.stopReason !== 'final_answer')
          throw new Error(
            `${this.name}: stopped with ${result.stopReason}${result.error ? ` (${result.error.message})` : ''}`,
          );
        verifyTurn(this.name, log, result.response);
      } finally {
        tools.logs.delete(runId);
      }
    },
    cpuMs: async () => ownCpuMs(),
  };
}
