import type { orchestratorV1 } from '@platform/proto';
import { z } from 'zod';
import { RunAgent, runAgentOf } from '../agents/agent-json.js';
import { TokenUsage } from '../openapi/common-schemas.js';

/** A finished turn as clients see it (also the `result` of a streamed turn's last event). */
export const TurnResponse = z
  .object({
    runId: z.string(),
    conversationId: z.string(),
    status: z
      .string()
      .meta({ description: 'completed, waiting (an agent-tool waits for the user), failed or cancelled.' }),
    stopReason: z
      .string()
      .meta({ description: 'Why the loop stopped, e.g. final_answer, max_turns, agent_waiting, invalid_output.' }),
    response: z.string().meta({ description: "The assistant's answer." }),
    turns: z.number().int().min(0),
    toolCalls: z.array(
      z.object({
        callId: z.string(),
        name: z.string(),
        success: z.boolean(),
        status: z.string(),
        durationMs: z.number().min(0),
        errorCode: z.string().optional(),
      }),
    ),
    durationMs: z.number().min(0),
    usage: TokenUsage,
    pending: z.array(z.unknown()).meta({
      description: 'Agent-tools waiting for the user (status "waiting"): prompts and structured approval requests.',
    }),
    output: z.unknown().optional().meta({
      description:
        "The structured answer: a JSON value valid against the run's output schema (the message's `outputSchema`, else its agent's). Absent without one, or when the answer never validated (stopReason `invalid_output`).",
    }),
    agent: RunAgent.optional(),
    steered: z.literal(true).optional().meta({
      description:
        "Present when the message (multitask `steer`) joined the run in flight of its conversation before its next model call: `runId` and the rest are that run's outcome, which answers the message too.",
    }),
    messageRunId: z.string().optional().meta({
      description: "With `steered`: the message's own run (GET /v1/runs/{runId}: completed, stopReason `steered`).",
    }),
  })
  .meta({ id: 'TurnResponse' });
export type TurnResponse = z.infer<typeof TurnResponse>;

export const TURN_RESPONSE_EXAMPLE: TurnResponse = {
  runId: 'run_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
  conversationId: 'conv-1',
  status: 'completed',
  stopReason: 'final_answer',
  response: '2 + 2 = 4',
  turns: 2,
  toolCalls: [{ callId: 'call_1', name: 'calculator', success: true, status: 'success', durationMs: 3 }],
  durationMs: 41,
  usage: { inputTokens: 210, outputTokens: 18, totalTokens: 228 },
  pending: [],
  agent: { id: 'agt_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01', version: 2 },
};

/** The JSON shape of a finished turn (also the last event of a streamed one). */
export function turnResponseBody(result: orchestratorV1.HandleMessageResponse, conversationId: string): TurnResponse {
  return {
    runId: result.runId,
    conversationId,
    status: result.status,
    stopReason: result.stopReason,
    response: result.response,
    turns: result.turns,
    toolCalls: result.toolCalls.map((c) => ({
      callId: c.callId,
      name: c.name,
      success: c.success,
      status: c.status,
      durationMs: c.durationMs,
      ...(c.errorCode ? { errorCode: c.errorCode } : {}),
    })),
    durationMs: result.durationMs,
    usage: result.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    // Agent-tools waiting for the user (status "waiting"): prompts and structured approval requests.
    pending: JSON.parse(result.pendingJson || '[]') as unknown[],
    ...(result.outputJson ? { output: JSON.parse(result.outputJson) as unknown } : {}),
    agent: runAgentOf(result.agentId ?? '', result.agentVersion ?? 0),
    ...(result.steered ? { steered: true as const, messageRunId: result.messageRunId } : {}),
  };
}
