import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import { z } from 'zod';

const CANCEL_SUBJECT = 'platform.orchestrator.cancel';
/** `interrupt`: stop at the next step boundary instead (a newer message's `interrupt` policy). */
const CancelMessage = z.object({ runId: z.string(), mode: z.enum(['cancel', 'interrupt']).default('cancel') });
type CancelMode = 'cancel' | 'interrupt';

/**
 * Tells every orchestrator replica to cancel (or interrupt) a run; the one executing it stops it. The flag in
 * Postgres is the durable signal (seen at the next lease renewal); this makes it immediate.
 */
export class CancelBroadcast {
  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  publish(runId: string, mode: CancelMode = 'cancel'): void {
    this.nc.publish(CANCEL_SUBJECT, JSON.stringify(mode === 'cancel' ? { runId } : { runId, mode }));
  }

  listen(onCancel: (runId: string, mode: CancelMode) => void): void {
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
