import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLIENT_CLOSED_REQUEST } from './delay.js';
import { bearerToken } from './auth.js';
import type { AssistantReply } from './assistant-reply.js';
import { buildReply, outputChars } from './build-reply.js';
import { parseChatCompletionRequest, type ChatCompletionRequest } from './chat-request.js';
import { abortableDelay, disconnectSignal } from './delay.js';
import { faultError } from './faults.js';
import { completionId, requestFingerprint } from './ids.js';
import { ModelTimeLedger } from './model-time-ledger.js';
import { contextLengthExceeded, invalidRequest, modelNotFound, rateLimited, serverError } from './openai-errors.js';
import { buildStructuredReply } from './memory/structured-replies.js';
import { renderCompletion } from './render-completion.js';
import { asksForJsonSchema, responseFormatProblem } from './response-format.js';
import type { RequestLogEntry } from './request-log.js';
import { resolveStep, selectScenario, stepIndexOf, turnIndexOf } from './select-step.js';
import { sendError, type LlmSimApp, type SimState } from './sim-state.js';
import { buildStreamChunks, writeEventStream } from './stream-completion.js';
import type { StreamClock } from './stream-pacing.js';
import { buildToolReply, matchToolReply } from './tool-replies.js';
import { estimateCompletionTokens, estimatePromptTokens, usageOf } from './usage.js';

/** Registers `POST /v1/chat/completions`. */
export function registerChatCompletions(app: LlmSimApp, state: SimState): void {
  app.post('/v1/chat/completions', async (request: FastifyRequest, reply: FastifyReply) => {
    const entry = state.log.record(request.body);
    const parsed = parseChatCompletionRequest(request.body);
    if (!parsed.ok) return sendError(reply, invalidRequest(parsed.problem.message, parsed.problem.param), entry);
    const body = parsed.request;
    if (!state.models.includes(body.model)) return sendError(reply, modelNotFound(body.model), entry);
    const formatProblem = responseFormatProblem(body);
    if (formatProblem) return sendError(reply, invalidRequest(formatProblem.message, formatProblem.param), entry);

    // The memory service's structured requests (extraction, memory Q&A, session summaries) are
    // answered from their prompt, before scenario selection: the conversation text they quote may
    // carry `[scenario:…]` markers that are not meant for them.
    const structured = buildStructuredReply(body);
    state.counters.add(structured?.kind ?? 'chat', Number(request.headers['content-length']));
    if (structured) {
      entry.structuredReply = structured.kind;
      const signal = disconnectSignal(reply);
      if (!(await abortableDelay(structured.delayMs, signal))) {
        entry.status = CLIENT_CLOSED_REQUEST;
        reply.hijack();
        reply.raw.destroy();
        return reply;
      }
      request.log.info(
        { structuredReply: structured.kind, misbehaviour: structured.misbehaviour ?? null },
        'structured reply',
      );
      const answer = { content: structured.content, toolCalls: [], finishReason: 'stop' as const };
      return sendAnswer(
        reply,
        body,
        answer,
        entry,
        { chunkIntervalMs: 0, cutAfterChunks: undefined, clock: state.clock },
        signal,
      );
    }

    const selection = selectScenario(body.messages, state.scenarios, state.defaultScenario);
    if (!selection.ok) {
      const message = `Unknown scenario "${selection.requested}". Available scenarios: ${selection.available.join(', ')}.`;
      return sendError(reply, invalidRequest(message, 'messages', 'unknown_scenario'), entry);
    }
    const { scenario } = selection;
    // A tagged turn's completion counts toward its model time from here to its last byte sent.
    const tag = ModelTimeLedger.tagOf(body);
    if (tag !== undefined) {
      const started = performance.now();
      reply.raw.once('close', () => state.modelTime.add(tag, performance.now() - started));
    }

    // A side request forcing a tool that some scenario has a `toolReplies` entry for is answered
    // with that tool call, without using (or counting as) a step of the conversation.
    const toolReply = matchToolReply(body, scenario, state.scenarios);
    if (toolReply) {
      entry.scenario = toolReply.scenario.name;
      entry.toolReply = toolReply.toolName;
      const answer = buildToolReply(toolReply, body);
      request.log.info(
        { scenario: toolReply.scenario.name, toolReply: toolReply.toolName, stream: body.stream === true },
        'tool reply',
      );
      return sendAnswer(
        reply,
        body,
        answer,
        entry,
        { chunkIntervalMs: 0, cutAfterChunks: undefined, clock: state.clock },
        disconnectSignal(reply),
      );
    }

    const turnIndex = turnIndexOf(body.messages);
    const stepIndex = stepIndexOf(body.messages);
    entry.scenario = scenario.name;
    entry.turnIndex = turnIndex;
    entry.stepIndex = stepIndex;
    const resolved = resolveStep(scenario, stepIndex, turnIndex);
    if (!resolved.ok) {
      const where = scenario.turns ? ` turn ${resolved.turn}` : '';
      const message =
        `Scenario "${scenario.name}"${where} has ${resolved.stepCount} step(s); ` +
        `step index ${stepIndex} is past the end and whenExhausted is "error".`;
      return sendError(reply, serverError(message), entry);
    }
    const { step } = resolved;

    const signal = disconnectSignal(reply);
    const windowFault = state.faultWindow.active();
    if (windowFault) {
      entry.fault = windowFault.kind;
      if (windowFault.kind === 'server_error')
        return sendError(reply, serverError('The server is having an outage (simulated fault window).'), entry);
      if (windowFault.kind === 'rate_limit')
        return sendError(reply, rateLimited(body.model, windowFault.retryAfterSeconds ?? 1), entry);
      // `hang`: held unanswered until the window closes (then answered as usual) or the client gives up.
      await untilEndedOrAborted(state.faultWindow.ended(), signal);
      if (signal.aborted)
        return closeAbandoned(request, reply, entry, { scenario: scenario.name, turnIndex, stepIndex });
    }
    const timing = state.timing.timingOf(scenario, step);
    entry.delayMs = timing.delayMs;
    entry.drawnDelayMs = timing.drawnMs;
    if (!(await abortableDelay(timing.delayMs, signal)))
      return closeAbandoned(request, reply, entry, { scenario: scenario.name, turnIndex, stepIndex });

    const promptTokens = estimatePromptTokens(body);
    // Faults are counted only once the (possibly delayed) answer is due, so a request the client
    // abandoned does not use up a `times: 1` fault meant for its retry.
    // `response_format_unsupported` concerns only requests that ask for structured output.
    const applies = step.fault && (step.fault.kind !== 'response_format_unsupported' || asksForJsonSchema(body));
    const fault =
      step.fault &&
      applies &&
      state.faults.shouldFire(step.fault, requestFingerprint(scenario.name, body.messages, stepIndex))
        ? step.fault
        : undefined;
    if (fault) {
      entry.fault = fault.kind;
      request.log.info({ scenario: scenario.name, turnIndex, stepIndex, fault: fault.kind }, 'injecting fault');
    }
    if (fault && fault.kind !== 'stream_cut') {
      const error = faultError(
        { ...fault, kind: fault.kind },
        {
          model: body.model,
          promptTokens,
          contextWindowTokens: scenario.contextWindowTokens,
          apiKey: bearerToken(request.headers.authorization),
        },
      );
      return sendError(reply, error, entry);
    }
    if (scenario.contextWindowTokens !== undefined && promptTokens > scenario.contextWindowTokens) {
      return sendError(reply, contextLengthExceeded(scenario.contextWindowTokens, promptTokens), entry);
    }

    const answer = buildReply(scenario, step, stepIndex, body);
    request.log.info(
      {
        scenario: scenario.name,
        turnIndex: resolved.turn,
        stepIndex,
        replayed: resolved.replayed,
        stream: body.stream === true,
        finishReason: answer.finishReason,
      },
      'chat completion',
    );
    const cutAfterChunks = fault?.kind === 'stream_cut' ? (fault.afterChunks ?? DEFAULT_CUT_AFTER_CHUNKS) : undefined;
    return sendAnswer(
      reply,
      body,
      answer,
      entry,
      { chunkIntervalMs: timing.chunkIntervalMs, cutAfterChunks, clock: state.clock },
      signal,
    );
  });
}

/** Resolves when `ended` does or `signal` aborts, whichever comes first. */
function untilEndedOrAborted(ended: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    void ended.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** Records a request whose client hung up before its answer was due, and drops the connection. */
function closeAbandoned(
  request: FastifyRequest,
  reply: FastifyReply,
  entry: RequestLogEntry,
  where: Record<string, unknown>,
): FastifyReply {
  entry.status = CLIENT_CLOSED_REQUEST;
  request.log.info(where, 'client disconnected during delay');
  reply.hijack();
  reply.raw.destroy();
  return reply;
}

/** Chunks a `stream_cut` fault lets through when it does not say: the role and two pieces. */
const DEFAULT_CUT_AFTER_CHUNKS = 3;

/**
 * Sends a reply as one `chat.completion` or, for `stream: true`, as server-sent chunks. With
 * `cutAfterChunks` the connection breaks instead: after that many chunks of a stream, or before
 * any answer when not streaming (as a dropped connection would).
 */
async function sendAnswer(
  reply: FastifyReply,
  body: ChatCompletionRequest,
  answer: AssistantReply,
  entry: RequestLogEntry,
  delivery: { chunkIntervalMs: number; cutAfterChunks: number | undefined; clock: StreamClock },
  signal: AbortSignal,
): Promise<FastifyReply> {
  const usage = usageOf(estimatePromptTokens(body), estimateCompletionTokens(outputChars(answer)));
  const meta = { id: completionId(), created: Math.floor(Date.now() / 1000), model: body.model };
  entry.status = 200;
  if (body.stream !== true && delivery.cutAfterChunks !== undefined) {
    reply.hijack();
    reply.raw.destroy();
    return reply;
  }
  if (body.stream !== true) return reply.send(renderCompletion(answer, meta, usage));

  // From here on the response is written by hand: fastify must not add its own.
  reply.hijack();
  const includeUsage = body.stream_options?.include_usage === true;
  const chunks = buildStreamChunks(answer, meta, includeUsage ? usage : undefined);
  entry.chunkIntervalMs = delivery.chunkIntervalMs;
  const pace = { intervalMs: delivery.chunkIntervalMs, clock: delivery.clock };
  const completed = await writeEventStream(reply.raw, chunks, pace, signal, delivery.cutAfterChunks);
  if (!completed) {
    entry.status = CLIENT_CLOSED_REQUEST;
    reply.raw.destroy();
  }
  return reply;
}
