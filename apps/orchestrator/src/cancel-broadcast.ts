import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import { z } from 'zod';

const CANCEL_SUBJECT = 'platform.orchestrator.cancel';
/**
 * `interrupt`: stop at the next step boundary instead (a newer message's `interrupt` policy);
 * `steer`: a message waits to join the run before its next model call (the `steer` policy).
 */
const CancelMessage = z.object({ runId: z.string(), mode: z.enum(['cancel', 'interrupt', 'steer']).default('cancel') });
/** What a replica holding the run is told. */
export type RunNotice = z.infer<typeof CancelMessage>['mode'];

/**
 * Tells every orchestrator replica to cancel (or interrupt) a run, or that a steering message waits
 * for it; the one executing it acts. The record in Postgres is the durable signal (a cancel is
 * seen at the next lease renewal, a steer when the run's attempt starts, or it runs as its own turn);
 * this makes it immediate.
 */
export class CancelBroadcast {
  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  publish(runId: string, mode: RunNotice = 'cancel'): void {
    this.nc.publish(CANCEL_SUBJECT, JSON.stringify(mode === 'cancel' ? { runId } : { runId, mode }));
  }

  listen(onCancel: (runId: string, mode: RunNotice) => void): void {
    const sub = this.nc.subscribe(CANCEL_SUBJECT);
    void (async () => {
      for await (const msg of sub) {
        const parsed = CancelMessage.safeParse(jsonBody(msg));
        if (parsed.success) onCancel(parsed.data.runId, parsed.data.mode);
        else this.logger.warn({ subject: msg.subject }, 'ignored a malformed cancel message');
      }
    })();
  }
}
