import { performance } from 'node:perf_hooks';

export interface LoadResult {
  latenciesMs: number[];
  errors: number;
  firstError?: string;
  elapsedMs: number;
}

/** One turn; resolves when it is done, throws on any non-success. */
export type Turn = (worker: number, index: number) => Promise<void>;

/**
 * Runs `total` turns with `concurrency` workers in a closed loop (each worker sends its next turn
 * when the previous one is answered), recording every latency and counting failures.
 */
export function closedLoop(turn: Turn, concurrency: number, total: number): Promise<LoadResult> {
  return drive(turn, concurrency, (index) => index < total);
}

/**
 * The same closed loop for a fixed time: workers start turns for `durationMs`, and the turns
 * started by then finish (they count; elapsed time runs until the last one ends).
 */
export function closedLoopFor(turn: Turn, concurrency: number, durationMs: number): Promise<LoadResult> {
  const until = performance.now() + durationMs;
  return drive(turn, concurrency, () => performance.now() < until);
}

async function drive(turn: Turn, concurrency: number, more: (index: number) => boolean): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let index = next++; more(index); index = next++) {
        const t0 = performance.now();
        try {
          await turn(worker, index);
          latenciesMs.push(performance.now() - t0);
        } catch (err) {
          errors += 1;
          firstError ??= (err as Error).message;
        }
      }
    }),
  );
  return { latenciesMs, errors, ...(firstError ? { firstError } : {}), elapsedMs: performance.now() - started };
}
