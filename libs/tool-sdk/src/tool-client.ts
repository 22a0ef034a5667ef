import { headers as natsHeaders, NoRespondersError, TimeoutError, RequestError } from '@nats-io/nats-core';
import {
  TOOL_PROTOCOL_VERSION,
  ToolCallHeader,
  ToolCallResponse,
  toolSubject,
  type AgentStepInput,
  type SideEffect,
  type ToolCallResponse as ToolCallResponseType,
} from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import { headerSetter } from '@platform/service-kit';
import { startMessagingClientSpan } from '@platform/telemetry';
import { callToolBatch, type ToolBatchInput, type ToolBatchOutcome, type ToolCallAnswer } from './tool-batch-client.js';
import { invalidUtf8Diagnostic, readReplyJson } from './read-reply.js';
import { mayRetryUnanswered, TRANSPORT_RETRY_DEFAULTS, type UnansweredKind } from './retry-policy.js';

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
  /**
   * The tool's side-effect class (from its catalog entry). With it, a call that got no answer may
   * be retried per `mayRetryUnanswered`; without it the client never retries such a call.
   */
  sideEffect?: SideEffect;
  /** The runner publishes `platform.dedupe: "true"`: an `external` call may then be repeated safely. */
  dedupe?: boolean;
  /** For agent-tools (kind `agent`): the step to run; absent means `start` (docs/tool-protocol.md, "Agent-tools"). */
  agent?: AgentStepInput;
  /** The call's credential grant (tools that declare `credentials`); sent as `Platform-Credential-Grant`. */
  credentialGrant?: string;
}

export interface ToolClientOptions {
  nc: NatsConnection;
  logger: Logger;
  /** How often a `busy` answer is retried (NATS picks another replica of the queue group). Default 3. */
  busyRetries?: number;
  /** Pause before retrying a busy call. Default 5 ms. */
  busyRetryDelayMs?: number;
  /** Extra attempts after an unanswered call, when `mayRetryUnanswered` allows them. Default 2. */
  transportRetries?: number;
  /** Pause before the first transport retry; doubles each time. Default 100 ms. */
  transportRetryDelayMs?: number;
}

/** One attempt's answer, plus how it failed when no runner answered. */

interface Attempt {
  response: ToolCallAnswer;
  unanswered?: UnansweredKind;
}

function failure(
  status: 'failed' | 'timeout',
  code: 'RUNNER_UNAVAILABLE' | 'TRANSPORT_FAILED' | 'DEADLINE_EXCEEDED',
  message: string,
  started: number,
): ToolCallResponseType {
  return { status, error: { code, message }, durationMs: Date.now() - started };
}

function isNoResponders(error: unknown): boolean {
  return error instanceof NoRespondersError || (error instanceof RequestError && error.isNoResponders());
}

/**
 * Calls tools on runners over NATS request-reply (protocol v1). It never throws for a failed
 * call: every outcome, including "no runner online", is a ToolCallResponse the loop can turn
 * into a tool result.
 *
 * Retries: a `busy` answer is retried on another replica (`busyRetries`); a call that got no
 * answer is retried only as `mayRetryUnanswered` allows for the input's `sideEffect`/`dedupe`
 * (never when they are not given); every retry stays within the call's `deadlineAt`.
 */
export class ToolClient {
  private readonly busyRetries: number;
  private readonly busyRetryDelayMs: number;
  private readonly transportRetries: number;
  private readonly transportRetryDelayMs: number;

  constructor(private readonly options: ToolClientOptions) {
    this.busyRetries = options.busyRetries ?? 3;
    this.busyRetryDelayMs = options.busyRetryDelayMs ?? 5;
    this.transportRetries = options.transportRetries ?? TRANSPORT_RETRY_DEFAULTS.retries;
    this.transportRetryDelayMs = options.transportRetryDelayMs ?? TRANSPORT_RETRY_DEFAULTS.delayMs;
  }

  async call(input: ToolCallInput): Promise<ToolCallAnswer> {
    const started = Date.now();
    let busyRetries = 0;
    let transportRetries = 0;
    for (;;) {
      const { response, unanswered } = await this.attempt(input, started);
      // `busy` is sent before any work starts, so it is always safe to try another replica.
      if (
        response.status === 'busy' &&
        busyRetries < this.busyRetries &&
        input.deadlineAt - Date.now() > this.busyRetryDelayMs
      ) {
        busyRetries++;
        await new Promise((r) => setTimeout(r, this.busyRetryDelayMs));
        continue;
      }
      const delay = this.transportRetryDelayMs * 2 ** transportRetries;
      const retryUnanswered =
        unanswered !== undefined &&
        transportRetries < this.transportRetries &&
        mayRetryUnanswered(unanswered, input.sideEffect, input.dedupe) &&
        input.deadlineAt - Date.now() > delay &&
        !input.signal?.aborted;
      if (!retryUnanswered) return response.status === 'busy' ? { ...response, status: 'failed' } : response;
      transportRetries++;
      this.options.logger.debug(
        { tool: input.toolName, callId: input.callId, unanswered, retry: transportRetries },
        'retrying a tool call that got no answer',
      );
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /**
   * Sends many calls of one tool in one request (docs/tool-protocol.md, "Batched
   * calls"). `unsupported` means no runner serves batches of it: send the calls with `call`.
   */
  callBatch(input: ToolBatchInput): Promise<ToolBatchOutcome> {
    return callToolBatch(this.options.nc, this.options.logger, input);
  }

  private async attempt(input: ToolCallInput, started: number): Promise<Attempt> {
    const remaining = input.deadlineAt - Date.now();
    if (remaining <= 0)
      return {
        response: failure(
          'timeout',
          'DEADLINE_EXCEEDED',
          `'${input.toolName}' ran out of time before it could be called`,
          started,
        ),
      };
    if (input.signal?.aborted)
      return { response: failure('failed', 'TRANSPORT_FAILED', 'the call was cancelled before it was sent', started) };

    const h = natsHeaders();
    const set = headerSetter(h);
    set(ToolCallHeader.callId, input.callId);
    set(ToolCallHeader.tenant, input.tenantId);
    set(ToolCallHeader.conversation, input.conversationId);
    if (input.runId) set(ToolCallHeader.run, input.runId);
    set(ToolCallHeader.deadline, String(input.deadlineAt));
    set(ToolCallHeader.protocol, TOOL_PROTOCOL_VERSION);
    if (input.credentialGrant) set(ToolCallHeader.credentialGrant, input.credentialGrant);
    const subject = toolSubject(input.toolName);
    const body = JSON.stringify(
      input.agent ? { arguments: input.arguments, agent: input.agent } : { arguments: input.arguments },
    );
    const span = startMessagingClientSpan({ subject, bodySize: Buffer.byteLength(body) });
    span.inject(set);

    let reply;
    try {
      reply = await this.options.nc.request(subject, body, { timeout: remaining, headers: h });
      span.end();
    } catch (error) {
      span.end(error);
      if (isNoResponders(error)) {
        return {
          response: failure('failed', 'RUNNER_UNAVAILABLE', `no runner serves '${input.toolName}' right now`, started),
          unanswered: 'no_responders',
        };
      }
      if (error instanceof TimeoutError || (error instanceof RequestError && error.cause instanceof TimeoutError)) {
        return {
          response: failure(
            'timeout',
            'DEADLINE_EXCEEDED',
            `'${input.toolName}' did not answer within ${remaining} ms`,
            started,
          ),
          unanswered: 'no_answer',
        };
      }
      this.options.logger.warn(
        { err: error, tool: input.toolName, callId: input.callId },
        'tool call transport failed',
      );
      return {
        response: failure(
          'failed',
          'TRANSPORT_FAILED',
          `'${input.toolName}' could not be reached: ${(error as Error).message}`,
          started,
        ),
        unanswered: 'no_answer',
      };
    }

    const { json, badByte } = readReplyJson(reply);
    const parsed = ToolCallResponse.safeParse(json);
    if (!parsed.success) {
      this.options.logger.warn(
        { tool: input.toolName, callId: input.callId, issues: parsed.error.issues },
        'runner sent an invalid response',
      );
      // An answer, even a broken one, means the runner ran the call: never retried.
      return {
        response: failure(
          'failed',
          'TRANSPORT_FAILED',
          `the runner of '${input.toolName}' sent a response that breaks the tool protocol`,
          started,
        ),
      };
    }
    if (badByte < 0) return { response: parsed.data };
    this.options.logger.warn(
      { tool: input.toolName, callId: input.callId, byteOffset: badByte },
      'runner answered with bytes that are not UTF-8; read with U+FFFD',
    );
    return { response: { ...parsed.data, diagnostics: [invalidUtf8Diagnostic(badByte)] } };
  }
}
