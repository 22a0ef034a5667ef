import { RUN_EVENTS_STREAM, RunEventEnvelope, runEventsSubject } from '@platform/contracts';
import { followSubject, lastMessageJson, type Logger, type NatsConnection } from '@platform/service-kit';

/** Where forwarded events go: the parent's own run-event publisher. */
export type ForwardTo = (type: 'child_run_event', data: Record<string, unknown>) => void;

/** Reads one run's stored events oldest first, then live ones; `each` returns false to stop. */
async function readRunEvents(
  nc: NatsConnection,
  runId: string,
  each: (event: RunEventEnvelope) => boolean,
  signal: AbortSignal,
): Promise<void> {
  for await (const { body } of followSubject(nc, RUN_EVENTS_STREAM, runEventsSubject(runId), signal)) {
    const parsed = RunEventEnvelope.safeParse(body);
    if (parsed.success && !each(parsed.data)) return;
  }
}

/**
 * The id of the last event of `childRunId` the parent's stream already holds (0 when none): a
 * parent that resumes after a crash re-establishes forwarding from the next one, so the events
 * the child published while nobody forwarded them are not lost and none is forwarded twice.
 */
export async function lastForwardedId(nc: NatsConnection, parentRunId: string, childRunId: string): Promise<number> {
  const last = RunEventEnvelope.safeParse(await lastMessageJson(nc, RUN_EVENTS_STREAM, runEventsSubject(parentRunId)));
  if (!last.success) return 0;
  let forwarded = 0;
  await readRunEvents(
    nc,
    parentRunId,
    (event) => {
      const inner = event.data['event'] as { id?: unknown } | undefined;
      if (event.type === 'child_run_event' && event.data['childRunId'] === childRunId && typeof inner?.id === 'number')
        forwarded = Math.max(forwarded, inner.id);
      return event.id < last.data.id;
    },
    AbortSignal.timeout(10_000),
  );
  return forwarded;
}

/**
 * Republishes a child run's events on its parent's stream while the parent waits for it, as
 * `child_run_event`s (chunks left out). It reads the child's stored events (JetStream, not a
 * plain subscription), so it starts from any point: from the first event for a new child, and
 * after the last one already forwarded for a child the parent finds again after a restart, on
 * whichever replica resumes the parent.
 */
export class ChildEventForwarder {
  private readonly stopped = new AbortController();
  private ended!: () => void;
  private readonly end = new Promise<void>((resolve) => (this.ended = resolve));
  private readonly reading: Promise<void>;

  constructor(
    nc: NatsConnection,
    childRunId: string,
    role: string,
    afterId: number,
    forward: ForwardTo,
    logger: Logger,
  ) {
    this.reading = readRunEvents(
      nc,
      childRunId,
      (event) => {
        if (event.id > afterId && event.type !== 'message_chunk' && event.type !== 'tool_call_args_delta')
          forward('child_run_event', {
            childRunId,
            role,
            event: { type: event.type, id: event.id, at: event.at, data: event.data },
          });
        if (event.type !== 'execution_end') return true;
        this.ended();
        return false;
      },
      this.stopped.signal,
    ).catch((err: unknown) =>
      logger.warn({ childRunId, err: (err as Error).message }, "could not forward the child run's events"),
    );
  }

  /**
   * Stops forwarding once the child's `execution_end` went through (it is published just after
   * the child's outcome is recorded, so it may trail the finished record), waiting at most `graceMs`.
   */
  async stop(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.end, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.stopped.abort();
    await this.reading;
  }

  /** Stops at once (the parent stopped waiting). */
  async cancel(): Promise<void> {
    this.stopped.abort();
    await this.reading;
  }
}
