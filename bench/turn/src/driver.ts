import { performance } from 'node:perf_hooks';

export interface LoadResult {
  latenciesMs: number[];
  errors: number;
  firstError?: string;
  elapsedMs: number;
}

/** One 2-step turn through the HTTP API; resolves with its latency, throws on any non-success. */
export type Turn = (worker: number, index: number) => Promise<void>;

/**
 * Runs `total` turns with `concurrency` workers in a closed loop (each worker sends its next turn
 * when the previous one is answered), recording every latency and counting failures.
 */
export async function closedLoop(turn: Turn, concurrency: number, total: number): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let index = next++; index < total; index = next++) {
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
