/**
 * How long handing runs over may take after the shutdown grace (SHUTDOWN_GRACE_MS): answering the
 * callers still waiting and releasing the runs' leases. gRPC calls get the grace plus this, so
 * past the grace they are answered, not cut.
 */
export const HAND_OVER_MS = 2_000;

/** Whether `work` settles within `ms`. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a caller still waiting past the grace is told: try again (another replica) after this long. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;
