import { setTimeout as sleepFor } from 'node:timers/promises';

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
