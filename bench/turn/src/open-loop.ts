import { performance } from 'node:perf_hooks';
import type { Turn } from '@platform/bench-kit';

export interface OpenLoopResult {
  /** Offered rate (turns per second). */
  rate: number;
  /** Each turn's latency from its intended send time (not from when it was sent). */
  latenciesMs: number[];
  errors: number;
  firstError?: string;
  /** Turns answered per second over the phase (from the first intended send to the last answer). */
  achievedRate: number;
  /** How late the driver sent, at worst (its own stalls; large values mean the driver was the limit). */
  worstSendLagMs: number;
}

/**
 * Offers turns at a fixed rate for `durationMs`, whatever the platform's answers do: turn i is due
 * at start + i / rate, and its latency is measured from that due time, so a stall that delays
 * sending counts against the platform as it would for real users (no coordinated omission).
 * Every latency is kept, so percentiles are exact.
 */
export async function openLoop(turn: Turn, rate: number, durationMs: number): Promise<OpenLoopResult> {
  const total = Math.max(1, Math.round((rate * durationMs) / 1000));
  const intervalMs = 1000 / rate;
  const latenciesMs: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let errors = 0;
  let firstError: string | undefined;
  let worstSendLagMs = 0;
  const started = performance.now();
  for (let index = 0; index < total; index++) {
    const dueAt = started + index * intervalMs;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    worstSendLagMs = Math.max(worstSendLagMs, performance.now() - dueAt);
    const sending = turn(0, index).then(
      () => void latenciesMs.push(performance.now() - dueAt),
      (err: unknown) => {
        errors += 1;
        firstError ??= (err as Error).message;
      },
    );
    const tracked = sending.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }
  await Promise.all(inFlight);
  const elapsedMs = performance.now() - started;
  return {
    rate,
    latenciesMs,
    errors,
    ...(firstError ? { firstError } : {}),
    achievedRate: (latenciesMs.length / elapsedMs) * 1000,
    worstSendLagMs,
  };
}
