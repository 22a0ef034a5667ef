import type { StreamResponse } from '@a2a-js/sdk';
import type { RunEventEnvelope } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import type { RunEvents } from '../events/run-event-reader.js';
import type { TurnRequest, TurnRunner } from '../turns/turn-runner.js';
import { a2aErrorOf } from './a2a-errors.js';
import { outcomeOfAnswer } from './run-outcomes.js';
import { TaskEventRenderer, taskResponse } from './task-events.js';
import { taskOf, type TaskRef } from './task-mapping.js';

export interface TaskRunStart {
  turns: Pick<TurnRunner, 'run'>;
  events: RunEvents;
  request: TurnRequest;
  runId: string;
  ref: TaskRef;
  deadlineAt: number;
  /** How long after the turn's answer the stream waits for the run's last event before ending with the answer. */
  endGraceMs: number;
  /** The caller went away: the wait (and the read) stop, the run goes on. */
  signal: AbortSignal;
}

type Started =
  | { kind: 'event'; next: IteratorResult<RunEventEnvelope> }
  | { kind: 'unreadable'; error: unknown }
  | { kind: 'finished'; answer: orchestratorV1.HandleMessageResponse }
  | { kind: 'refused'; error: unknown };

/**
 * Starts a task's run and reads its events: the read begins before the run (its id is new, so
 * every event reaches it), then whichever comes first, its first event or the turn's answer, tells
 * whether the run started. A refusal before the run (rate limit, unknown agent, overload) is
 * thrown then, before anything is streamed. Events come from the run-events stream, not from the
 * orchestrator's connection: an orchestrator crash pauses them until the run resumes elsewhere.
 */
export class TaskRun {
  readonly turn: Promise<orchestratorV1.HandleMessageResponse>;
  private readonly stop = new AbortController();
  private readonly events: AsyncIterator<RunEventEnvelope>;
  /** The first read: whichever side wins the start's race, it is the stream's first event. */
  private firstRead: Promise<IteratorResult<RunEventEnvelope>> | undefined;
  private failure: unknown;
  private ended = false;

  constructor(private readonly start: TaskRunStart) {
    const onGone = (): void => this.stop.abort();
    start.signal.addEventListener('abort', onGone, { once: true });
    this.events = start.events.read(start.runId, 0, this.stop.signal, { fresh: true })[Symbol.asyncIterator]();
    this.turn = start.turns.run(start.request, start.runId, start.deadlineAt, start.signal);
    // A turn that fails after the run started (the api's wait deadline) ends the read.
    this.turn.then(
      () => {
        start.signal.removeEventListener('abort', onGone);
        // If the last event never arrives (events were lost), the read stops soon after the run ended.
        setTimeout(() => !this.ended && this.stop.abort(), start.endGraceMs).unref();
      },
      (error: unknown) => {
        this.failure = error;
        this.stop.abort();
      },
    );
  }

  /** Waits until the run started (its first event) or ended; throws the refusal of a run that never started. */
  async started(): Promise<Started> {
    this.firstRead ??= this.events.next();
    const first = await Promise.race<Started>([
      this.firstRead.then(
        (next) => ({ kind: 'event', next }),
        (error: unknown) => ({ kind: 'unreadable', error }),
      ),
      this.turn.then(
        (answer) => ({ kind: 'finished', answer }),
        (error: unknown) => ({ kind: 'refused', error }),
      ),
    ]);
    if (first.kind === 'refused') {
      this.close();
      throw a2aErrorOf(first.error);
    }
    return first;
  }

  /**
   * The task's stream: the task first (working), then what the run's events make of it, ending
   * with the status its end gives. When the end's event never comes (the events could not be read,
   * or were lost), the turn's answer ends the stream instead.
   */
  async *stream(structured: boolean): AsyncGenerator<StreamResponse> {
    const { ref, runId } = this.start;
    const renderer = new TaskEventRenderer(ref, runId, structured);
    try {
      const first = await this.started();
      yield taskResponse(taskOf(ref, { runId, status: 'running', at: new Date().toISOString() }));
      if (first.kind !== 'unreadable') {
        // The read ends after `execution_end`, or when the caller goes away or the turn fails.
        let next = first.kind === 'event' ? first.next : await this.firstRead!;
        while (!next.done) {
          yield* renderer.responses(next.value);
          if (next.value.type === 'execution_end') return;
          next = await this.events.next();
        }
      }
      if (this.start.signal.aborted) return;
      if (this.failure !== undefined) throw this.failure;
      const answer = await this.turn;
      yield* renderer.ended(outcomeOfAnswer(answer));
    } catch (error) {
      throw a2aErrorOf(error);
    } finally {
      this.close();
    }
  }

  close(): void {
    this.ended = true;
    this.stop.abort();
    void this.events.return?.(undefined).catch(() => undefined);
  }
}
