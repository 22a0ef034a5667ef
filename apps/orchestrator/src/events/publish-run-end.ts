import { runEndedSubject, RunEnded } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';

export interface EndedRun {
  tenantId: string;
  conversationId: string;
  runId: string;
  stopReason: string;
}

/**
 * The step after `execution_end`: tells the platform the run is over (`RunEnded` on
 * `platform.run-ended.<tenant>`), so services that keep per-run state (memory's working memory)
 * drop it now. Core NATS, fire-and-forget: the turn never waits for it or fails because of it;
 * a notice nobody received is covered by those services' own expiry.
 */
export class RunEndPublisher {
  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  announce(run: EndedRun): void {
    try {
      const notice = RunEnded.parse({ type: 'run.ended', ...run, endedAt: new Date().toISOString() });
      this.nc.publish(runEndedSubject(run.tenantId), JSON.stringify(notice));
    } catch (err) {
      this.logger.warn(
        { runId: run.runId, err: (err as Error).message },
        'could not announce the end of the run; per-run state expires instead',
      );
    }
  }
}
