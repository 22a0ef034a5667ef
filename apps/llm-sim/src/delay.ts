import { setTimeout as sleepFor } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';

/** Non-standard status (nginx's convention) recorded when the client hung up before the answer. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Waits `ms`, resolving false instead if `signal` aborts first (the client went away), so a
 * pending delay never outlives its request nor throws into the handler.
 */
export async function abortableDelay(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleepFor(ms, undefined, { signal });
    return true;
  } catch (error) {
    if (signal.aborted) return false;
    throw error;
  }
}

/**
 * Aborts when the client disconnects before the response is complete, so delays and streams stop
 * instead of writing into a dead socket.
 */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
