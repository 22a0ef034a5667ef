import {
  ToolBatchRequest,
  type ToolBatchReply,
  type ToolBatchResult,
  type ToolCallResponse,
} from '@platform/contracts';
import type { CallDedupe } from './call-dedupe.js';
import { outcome } from './call-outcome.js';
import type { ToolDefinition } from './define-tool.js';
import { parseRequestBody, runOpenedToolCall, type CallEnvironment } from './handle-call.js';

/** What a batch shares with single calls, minus what is per call (the grant, the dedupe wrapper). */
export type BatchEnvironment = Omit<CallEnvironment, 'credentialGrant' | 'once'> & {
  /** Runs each call at most once per call id, as for single calls (`external` tools with a result store). */
  guard?: CallDedupe | undefined;
};

/** The runner's concurrency slots: `take(n)` admits up to `n` calls and says how many; `release()` frees one. */
export interface CallSlots {
  take(wanted: number): number;
  release(): void;
}

/**
 * Serves a batch of calls of one tool (docs/tool-protocol.md, "Batched calls"):
 * every call is validated, deduped, run under its own deadline and answered as if it had come
 * alone. Calls past the runner's free slots are answered `busy` one by one (nothing of them ran),
 * so the caller retries exactly those. Never throws.
 */
export async function handleToolBatch(
  tool: ToolDefinition,
  body: string,
  env: BatchEnvironment,
  slots: CallSlots,
): Promise<ToolBatchReply> {
  const now = env.now ?? Date.now;
  const started = now();
  const elapsed = (): number => now() - started;
  const request = parseRequestBody(body, ToolBatchRequest);
  if (Array.isArray(request))
    return {
      refused: outcome.invalid('INVALID_REQUEST', 'the request body is not a batch of tool calls', elapsed(), request),
    };

  const admitted = slots.take(request.calls.length);
  const results = request.calls.map(async (call, index): Promise<ToolBatchResult> => {
    if (index >= admitted) return { response: outcome.busy('runner is at its concurrency limit') };
    let replayed = false;
    const guard = env.guard;
    const once = guard
      ? async (
          dedupeCall: Parameters<CallDedupe['once']>[0],
          run: () => Promise<ToolCallResponse>,
        ): Promise<ToolCallResponse> => {
          const result = await guard.once(dedupeCall, run);
          replayed = result.replayed;
          return result.response;
        }
      : undefined;
    try {
      const response = await runOpenedToolCall(
        tool,
        {
          meta: {
            callId: call.callId,
            tenantId: call.tenantId,
            conversationId: call.conversationId,
            runId: call.runId,
            deadlineAt: call.deadlineAt,
          },
          request: { arguments: call.arguments },
          started,
          elapsed,
        },
        { ...env, once, credentialGrant: call.credentialGrant },
      );
      return replayed ? { response, replayed } : { response };
    } finally {
      slots.release();
    }
  });
  return { results: await Promise.all(results) };
}
