import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import { z } from 'zod';

const CANCEL_SUBJECT = 'platform.orchestrator.cancel';
const CancelMessage = z.object({ runId: z.string() });

/**
 * Tells every orchestrator replica to cancel a run; the one executing it stops it. The flag in
 * Postgres is the durable signal (seen at the next lease renewal); this makes it immediate.
 */
export class CancelBroadcast {
  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  publish(runId: string): void {
    this.nc.publish(CANCEL_SUBJECT, JSON.stringify({ runId }));
  }

  listen(onCancel: (runId: string) => void): void {
    const sub = this.nc.subscribe(CANCEL_SUBJECT);
    void (async () => {
      for await (const msg of sub) {
        const parsed = CancelMessage.safeParse(jsonBody(msg));
        if (parsed.success) onCancel(parsed.data.runId);
        else this.logger.warn({ subject: msg.subject }, 'ignored a malformed cancel message');
      }
    })();
  }
}
