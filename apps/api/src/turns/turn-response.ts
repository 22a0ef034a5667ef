import type { orchestratorV1 } from '@platform/proto';

/** The JSON shape of a finished turn (also the last event of a streamed one). */
export function turnResponseBody(result: orchestratorV1.HandleMessageResponse, conversationId: string): Record<string, unknown> {
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
    pending: JSON.parse(result.pendingJson || '[]') as unknown,
  };
}
