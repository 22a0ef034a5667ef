import { isConnectionLoss, isPlatformError } from '@platform/service-kit';

/**
 * A failure that says nothing about the run: a dependency (memory, the agent pool, the database)
 * was unreachable or too slow. Trying again later is right; counting it as a failed attempt is not.
 */
export function isOutage(error: unknown): boolean {
  if (isPlatformError(error)) return error.kind === 'unavailable' || error.kind === 'deadline_exceeded';
  return isConnectionLoss(error);
}
