import type { RunEventEnvelope } from '@platform/contracts';
import type { FastifyReply } from 'fastify';
import type { RunEvents } from '../events/run-event-reader.js';
import { SseStream } from '../events/sse.js';
import { toHttpError, type ErrorBody } from '../http-errors.js';
import { clientGone } from './client-gone.js';
import type { TurnRequest, TurnRunner } from './turn-runner.js';
import { turnResponseBody } from './turn-response.js';

export interface StreamedTurnOptions {
  runner: Pick<TurnRunner, 'run'>;
  reader: RunEvents;
  request: TurnRequest;
  runId: string;
  deadlineAt: number;
  heartbeatMs: number;
  /** Writes one run event in the stream's format. */
  render: (stream: SseStream, event: RunEventEnvelope) => void;
  /** Writes the end of the stream after `execution_end` (e.g. OpenAI's `[DONE]`). */
  finish?: (stream: SseStream) => void;
  /** Writes a failure after the stream opened, in the stream's format (default: an `error` event with the envelope). */
  fail?: (stream: SseStream, error: ErrorBody) => void;
  /** Told the run that answers, before the stream opens: `runId`, or for a keyed repeat the first send's run. */
  onRunId?: (runId: string) => void;
}

/**
 * The events of a keyed turn's run: which run answers is known only once the orchestrator names
 * it (its own new run, or the run an earlier send with the key started, which may have run for a
 * while), so the read starts then, from the run's first stored event.
 */
async function* keyedRunEvents(
  reader: RunEvents,
  runId: Promise<string | undefined>,
  signal: AbortSignal,
): AsyncGenerator<RunEventEnvelope> {
  const stopped = new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined);
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  const id = await Promise.race([runId, stopped]);
  if (id === undefined) return;
  yield* reader.read(id, 0, signal);
}

/**
 * Runs a turn and streams its events. A refusal before the run starts (rate limit, unknown
 * profile, overload) is still an ordinary JSON error response: the stream only opens with the
 * run's first event. Events come from the run-events stream, not from the orchestrator's
 * connection, so an orchestrator crash mid-run only pauses the stream until the run resumes.
 */
export async function streamTurn(reply: FastifyReply, options: StreamedTurnOptions): Promise<void> {
  const stopReading = new AbortController();
  let runId = options.runId;
  let named!: (runId: string) => void;
  const answeringRun = new Promise<string>((resolve) => (named = resolve));
  const keyed = Boolean(options.request.idempotencyKey);
  // The read begins before the run does (the run id is new), so it needs nothing the stream
  // stored before it: the run's events reach it from the replica's feed as they are stored.
  // A keyed turn may be answered by an earlier send's run: its read waits for the run's name.
  const events = (
    keyed
      ? keyedRunEvents(options.reader, answeringRun, stopReading.signal)
      : options.reader.read(options.runId, 0, stopReading.signal, { fresh: true })
  )[Symbol.asyncIterator]();
  const nameRun = (id: string): void => {
    runId = id;
    named(id);
  };
  // A client that goes away stops the wait (and the attaching after a lost orchestrator), not the run.
  const turn = options.runner.run(
    options.request,
    options.runId,
    options.deadlineAt,
    clientGone(reply),
    keyed ? nameRun : undefined,
  );
  if (keyed)
    turn.then(
      (response) => nameRun(response.runId),
      () => undefined,
    );
  // The first read stays pending while the race below runs: it is the stream's first event
  // whichever side wins (asking the generator again would skip it).
  const firstRead = events.next();
  const first = await Promise.race([
    firstRead.then(
      (next) => ({ kind: 'event' as const, next }),
      (error: unknown) => ({ kind: 'unreadable' as const, error }),
    ),
    turn.then(
      () => ({ kind: 'finished' as const }),
      (error: unknown) => ({ kind: 'refused' as const, error }),
    ),
  ]);
  if (first.kind === 'refused') {
    stopReading.abort();
    await events.return?.(undefined);
    throw first.error;
  }
  if (first.kind === 'unreadable') {
    // The events cannot be read, but the turn runs all the same: once its fate is known, a
    // refusal keeps its own status and code, and a finished turn is streamed as its last event
    // alone (the run is done: an error here would make a client send the message again).
    const outcome = await turn.then(
      (response) => ({ refused: false as const, response }),
      (error: unknown) => ({ refused: true as const, error }),
    );
    if (outcome.refused) throw outcome.error;
    endAlone(reply, options, outcome.response, { eventsUnavailable: true });
    stopReading.abort();
    return;
  }
  if (first.kind === 'finished') {
    // A steering message that joined the run in flight has no events of its own: its stream is
    // the joined run's end (that run's events are its own stream, GET /v1/runs/{runId}/events).
    const response = await turn;
    if (response.steered) {
      stopReading.abort();
      await events.return?.(undefined);
      endAlone(reply, options, response, { steered: true });
      return;
    }
  }

  options.onRunId?.(runId);
  const stream = new SseStream(reply, options.heartbeatMs, { 'x-run-id': runId });
  stream.closedSignal().addEventListener('abort', () => stopReading.abort(), { once: true });
  // If the final event never arrives (events were lost), the stream closes soon after the run ends.
  let ended = false;
  turn.then(
    () => setTimeout(() => !ended && stopReading.abort(), options.heartbeatMs).unref(),
    () => undefined,
  );
  turn.catch((error: unknown) => {
    // The run failed after streaming began (e.g. the api's wait deadline): say so and close.
    failWith(stream, options, toHttpError(error).body);
    stopReading.abort();
    stream.end();
  });
  try {
    let next = first.kind === 'event' ? first.next : await firstRead;
    while (!next.done) {
      options.render(stream, next.value);
      if (next.value.type === 'execution_end') {
        options.finish?.(stream);
        break;
      }
      next = await events.next();
    }
  } catch (error) {
    if (!stopReading.signal.aborted) failWith(stream, options, toHttpError(error).body);
  } finally {
    ended = true;
    stream.end();
    // Let go of the run's consumer (the reader may be suspended right after `execution_end`).
    stopReading.abort();
    void events.return?.(undefined).catch(() => undefined);
  }
}

function failWith(stream: SseStream, options: StreamedTurnOptions, error: ErrorBody): void {
  if (options.fail) options.fail(stream, error);
  else stream.send('error', error);
}

/** Streams a finished turn as its last event alone (the events cannot be read, or the message joined another run). */
function endAlone(
  reply: FastifyReply,
  options: StreamedTurnOptions,
  response: Awaited<ReturnType<TurnRunner['run']>>,
  extra: Record<string, unknown>,
): void {
  const runId = response.runId || options.runId;
  options.onRunId?.(runId);
  const stream = new SseStream(reply, options.heartbeatMs, { 'x-run-id': runId });
  const result = turnResponseBody(response, options.request.conversationId);
  options.render(stream, { id: 0, runId, type: 'execution_end', at: Date.now(), data: { result, ...extra } });
  options.finish?.(stream);
  stream.end();
}
