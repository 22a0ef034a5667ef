import { RUN_EVENTS_STREAM, RunEventEnvelope, runEventsSubject } from '@platform/contracts';
import { followSubject, lastMessageJson, type Logger, type NatsConnection } from '@platform/service-kit';

/** What routes need of the run events (a narrower type lets HTTP-edge tests supply their own). */
export type RunEvents = Pick<RunEventReader, 'read' | 'lastId'>;

/**
 * Reads one run's events from the run-events stream, oldest first, skipping those a client has
 * already seen (`afterId`, from `Last-Event-ID`), and ends after `execution_end`. Each reader is
 * an ordered consumer of its own, so any number of clients can watch one run.
 */
export class RunEventReader {
  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  /** The id of the run's last stored event (0 when none is stored: not started, or expired). */
  async lastId(runId: string): Promise<number> {
    const parsed = RunEventEnvelope.safeParse(
      await lastMessageJson(this.nc, RUN_EVENTS_STREAM, runEventsSubject(runId)),
    );
    return parsed.success ? parsed.data.id : 0;
  }

  async *read(runId: string, afterId: number, signal: AbortSignal): AsyncGenerator<RunEventEnvelope> {
    for await (const { seq, body } of followSubject(this.nc, RUN_EVENTS_STREAM, runEventsSubject(runId), signal)) {
      const parsed = RunEventEnvelope.safeParse(body);
      if (!parsed.success) {
        this.logger.warn({ runId, seq }, 'skipped a malformed run event');
        continue;
      }
      if (parsed.data.id <= afterId) continue;
      yield parsed.data;
      if (parsed.data.type === 'execution_end') return;
    }
  }
}
