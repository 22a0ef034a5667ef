import { headers as natsHeaders, NoRespondersError, TimeoutError, RequestError } from '@nats-io/nats-core';
import {
  TOOL_PROTOCOL_VERSION,
  ToolCallHeader,
  ToolCallResponse,
  toolSubject,
  type ToolCallResponse as ToolCallResponseType,
} from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import { headerSetter } from '@platform/service-kit';
import { startMessagingClientSpan } from '@platform/telemetry';

export interface ToolCallInput {
  toolName: string;
  arguments: Record<string, unknown>;
  callId: string;
  tenantId: string;
  conversationId: string;
  runId?: string;
  /** Absolute deadline (epoch ms) for the whole call, retries included. */
  deadlineAt: number;
  signal?: AbortSignal;
}

export interface ToolClientOptions {
  nc: NatsConnection;
  logger: Logger;
  /** How often a `busy` answer is retried (NATS picks another replica of the queue group). Default 3. */
  busyRetries?: number;
  /** Pause before retrying a busy call. Default 5 ms. */
  busyRetryDelayMs?: number;
}

function failure(status: 'failed' | 'timeout', code: 'RUNNER_UNAVAILABLE' | 'TRANSPORT_FAILED' | 'DEADLINE_EXCEEDED', message: string, started: number): ToolCallResponseType {
  return { status, error: { code, message }, durationMs: Date.now() - started };
}

function isNoResponders(error: unknown): boolean {
  return error instanceof NoRespondersError || (error instanceof RequestError && error.isNoResponders());
}

/**
 * Calls tools on runners over NATS request-reply (protocol v1). It never throws for a failed
 * call: every outcome, including "no runner online", is a ToolCallResponse the loop can turn
 * into a tool result.
 */
export class ToolClient {
  private readonly busyRetries: number;
  private readonly busyRetryDelayMs: number;

  constructor(private readonly options: ToolClientOptions) {
    this.busyRetries = options.busyRetries ?? 3;
    this.busyRetryDelayMs = options.busyRetryDelayMs ?? 5;
  }

  async call(input: ToolCallInput): Promise<ToolCallResponseType> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const response = await this.attempt(input, started);
      const canRetry = response.status === 'busy' && attempt < this.busyRetries && input.deadlineAt - Date.now() > this.busyRetryDelayMs;
      if (!canRetry) return response.status === 'busy' ? { ...response, status: 'failed' } : response;
      await new Promise((r) => setTimeout(r, this.busyRetryDelayMs));
    }
  }

  private async attempt(input: ToolCallInput, started: number): Promise<ToolCallResponseType> {
    const remaining = input.deadlineAt - Date.now();
    if (remaining <= 0) return failure('timeout', 'DEADLINE_EXCEEDED', `'${input.toolName}' ran out of time before it could be called`, started);
    if (input.signal?.aborted) return failure('failed', 'TRANSPORT_FAILED', 'the call was cancelled before it was sent', started);

    const h = natsHeaders();
    const set = headerSetter(h);
    set(ToolCallHeader.callId, input.callId);
    set(ToolCallHeader.tenant, input.tenantId);
    set(ToolCallHeader.conversation, input.conversationId);
    if (input.runId) set(ToolCallHeader.run, input.runId);
    set(ToolCallHeader.deadline, String(input.deadlineAt));
    set(ToolCallHeader.protocol, TOOL_PROTOCOL_VERSION);
    const subject = toolSubject(input.toolName);
    const body = JSON.stringify({ arguments: input.arguments });
    const span = startMessagingClientSpan({ subject, bodySize: Buffer.byteLength(body) });
    span.inject(set);

    let reply;
    try {
      reply = await this.options.nc.request(subject, body, { timeout: remaining, headers: h });
      span.end();
    } catch (error) {
      span.end(error);
      if (isNoResponders(error)) return failure('failed', 'RUNNER_UNAVAILABLE', `no runner serves '${input.toolName}' right now`, started);
      if (error instanceof TimeoutError || (error instanceof RequestError && error.cause instanceof TimeoutError)) {
        return failure('timeout', 'DEADLINE_EXCEEDED', `'${input.toolName}' did not answer within ${remaining} ms`, started);
      }
      this.options.logger.warn({ err: error, tool: input.toolName, callId: input.callId }, 'tool call transport failed');
      return failure('failed', 'TRANSPORT_FAILED', `'${input.toolName}' could not be reached: ${(error as Error).message}`, started);
    }

    let json: unknown;
    try {
      json = reply.json();
    } catch {
      json = undefined;
    }
    const parsed = ToolCallResponse.safeParse(json);
    if (!parsed.success) {
      this.options.logger.warn({ tool: input.toolName, callId: input.callId, issues: parsed.error.issues }, 'runner sent an invalid response');
      return failure('failed', 'TRANSPORT_FAILED', `the runner of '${input.toolName}' sent a response that breaks the tool protocol`, started);
    }
    return parsed.data;
  }
}
