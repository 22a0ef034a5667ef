import { headers as natsHeaders, NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import {
  TOOL_PROTOCOL_VERSION,
  ToolBatchReply,
  toolBatchSubject,
  ToolCallHeader,
  type ToolBatchCall,
  type ToolCallResponse,
} from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import { headerSetter } from '@platform/service-kit';
import { startMessagingClientSpan } from '@platform/telemetry';
import { invalidUtf8Diagnostic, readReplyJson } from './read-reply.js';

/**
 * A runner's answer as the client read it. `diagnostics` say what had to be repaired to read it
 * (bytes that were not UTF-8 decode as U+FFFD): the caller records them with the call.
 */
export type ToolCallAnswer = ToolCallResponse & { diagnostics?: string[] };

export interface ToolBatchInput {
  toolName: string;
  calls: ToolBatchCall[];
  signal?: AbortSignal;
}

/**
 * A batch's outcome: `unsupported` when no runner serves the tool's batch subject (send the calls
 * one by one instead: that also tells "no runner at all" apart), else one answer per call, in order.
 */
export type ToolBatchOutcome = { status: 'unsupported' } | { status: 'answered'; answers: ToolCallAnswer[] };

function every(calls: readonly ToolBatchCall[], response: ToolCallResponse): ToolBatchOutcome {
  return { status: 'answered', answers: calls.map(() => response) };
}

/**
 * Sends a batch of calls of one tool (docs/tool-protocol.md, "Batched calls") and never throws.
 * The request waits until the latest deadline in the batch; each call's own deadline is enforced
 * by the runner. A batch that got no answer is not retried here: every call in it comes back
 * `timeout` or `failed` with the same code a single call would get, and the caller retries
 * them as it retries single calls (with the same call ids, which runners dedupe on).
 */
export async function callToolBatch(
  nc: NatsConnection,
  logger: Logger,
  input: ToolBatchInput,
): Promise<ToolBatchOutcome> {
  const started = Date.now();
  const latest = Math.max(...input.calls.map((c) => c.deadlineAt));
  const remaining = latest - started;
  const failure = (
    status: 'failed' | 'timeout',
    code: 'TRANSPORT_FAILED' | 'DEADLINE_EXCEEDED',
    message: string,
  ): ToolCallResponse => ({
    status,
    error: { code, message },
    durationMs: Date.now() - started,
  });
  if (remaining <= 0)
    return every(
      input.calls,
      failure('timeout', 'DEADLINE_EXCEEDED', `'${input.toolName}' ran out of time before it could be called`),
    );
  if (input.signal?.aborted)
    return every(input.calls, failure('failed', 'TRANSPORT_FAILED', 'the call was cancelled before it was sent'));

  const h = natsHeaders();
  const set = headerSetter(h);
  set(ToolCallHeader.protocol, TOOL_PROTOCOL_VERSION);
  const subject = toolBatchSubject(input.toolName);
  const body = JSON.stringify({ calls: input.calls });
  const span = startMessagingClientSpan({ subject, bodySize: Buffer.byteLength(body) });
  span.inject(set);

  let reply;
  try {
    reply = await nc.request(subject, body, { timeout: remaining, headers: h });
    span.end();
  } catch (error) {
    span.end(error);
    if (error instanceof NoRespondersError || (error instanceof RequestError && error.isNoResponders()))
      return { status: 'unsupported' };
    if (error instanceof TimeoutError || (error instanceof RequestError && error.cause instanceof TimeoutError)) {
      return every(
        input.calls,
        failure(
          'timeout',
          'DEADLINE_EXCEEDED',
          `'${input.toolName}' did not answer a batch of ${input.calls.length} calls within ${remaining} ms`,
        ),
      );
    }
    logger.warn({ err: error, tool: input.toolName, calls: input.calls.length }, 'tool batch transport failed');
    return every(
      input.calls,
      failure('failed', 'TRANSPORT_FAILED', `'${input.toolName}' could not be reached: ${(error as Error).message}`),
    );
  }

  const { json, badByte } = readReplyJson(reply);
  const parsed = ToolBatchReply.safeParse(json);
  if (!parsed.success || ('results' in parsed.data && parsed.data.results.length !== input.calls.length)) {
    logger.warn(
      { tool: input.toolName, issues: parsed.success ? 'result count differs from call count' : parsed.error.issues },
      'runner sent an invalid batch reply',
    );
    // An answer, even a broken one, means the runner took the calls: they may have run.
    return every(
      input.calls,
      failure(
        'failed',
        'TRANSPORT_FAILED',
        `the runner of '${input.toolName}' sent a batch reply that breaks the tool protocol`,
      ),
    );
  }
  const diagnostics = badByte < 0 ? undefined : [invalidUtf8Diagnostic(badByte)];
  if (diagnostics)
    logger.warn(
      { tool: input.toolName, byteOffset: badByte },
      'runner answered a batch with bytes that are not UTF-8; read with U+FFFD',
    );
  const answers =
    'refused' in parsed.data
      ? input.calls.map(() => (parsed.data as { refused: ToolCallResponse }).refused)
      : parsed.data.results.map((r) => r.response);
  return { status: 'answered', answers: diagnostics ? answers.map((a) => ({ ...a, diagnostics })) : answers };
}
