import { errors, type GrpcServer, type Logger } from '@platform/service-kit';
import { ErrorCodes } from './error-codes.js';
import { HAND_OVER_MS, settlesWithin, SHUTDOWN_RETRY_AFTER_SECONDS } from './graceful-stop.js';
import type { ConversationQueue } from './ordering/conversation-queue.js';
import type { AttemptStep } from './turn/attempt.js';

/** A part of the process with something to stop (a sweep, a consumer, a watch, a connection). */
interface Stoppable {
  stop(): void | Promise<void>;
}

/** What a stopping orchestrator stops, in the order it stops them. */
export interface ShutdownParts {
  /** Stopped first, one after another: nothing new starts (sweeps, consumers). */
  first: Stoppable[];
  queue: Pick<ConversationQueue, 'close' | 'idle' | 'endWaits'>;
  grpc: Pick<GrpcServer, 'stop'>;
  attempts: Pick<AttemptStep, 'abandonAll'>;
  /** Stopped last, one after another, once no run is under way here. */
  last: Stoppable[];
  /** How long the runs under way get to finish (SHUTDOWN_GRACE_MS). */
  graceMs: number;
  logger: Logger;
}

/**
 * Stops the orchestrator (SIGTERM): no new calls and no new runs; the runs under way get the grace
 * to finish; past it, the callers still waiting are told to go elsewhere and the runs are handed
 * over (their leases released, so another replica resumes them from their journals at once).
 */
export async function shutDown(parts: ShutdownParts): Promise<void> {
  const { queue, graceMs, logger } = parts;
  for (const part of parts.first) await part.stop();
  queue.close();
  // Calls get a little longer than the runs: past the grace they are answered (below), not cut.
  const calls = parts.grpc.stop(graceMs + HAND_OVER_MS);
  if (!(await settlesWithin(queue.idle(), graceMs))) {
    // Callers waiting here attach again elsewhere (the api does); the runs stop without writing more.
    queue.endWaits(
      errors.unavailable(ErrorCodes.SHUTTING_DOWN, 'this orchestrator is shutting down; the run goes on elsewhere', {
        retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS,
      }),
    );
    const handedOver = parts.attempts.abandonAll('the orchestrator is shutting down');
    logger.warn({ runs: handedOver }, 'runs still under way at the end of the shutdown grace; handed over');
    await queue.idle();
  }
  await calls;
  for (const part of parts.last) await part.stop();
}
