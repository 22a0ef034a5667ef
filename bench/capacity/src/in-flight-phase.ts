// Turns offered open-loop at a fixed rate (no coordinated omission: a turn's time counts from when
// it was due), each streamed and tagged, while the number in flight is sampled; afterwards each
// turn's model time is read from llm-sim's ledger, so overhead = turn time - model time.
import { performance } from 'node:perf_hooks';
import { FailureTally } from '@platform/bench-kit';
import { streamedTurn, type StreamedTurnTarget } from './streamed-turn.js';

interface TurnSample {
  tag: string;
  ms: number;
}

export interface OfferedLoad {
  /** Turns answered, with their times from due to last event. */
  turns: TurnSample[];
  errors: number;
  /** The failures by kind (the message and its causes' codes: what gave up, and where). */
  failures: FailureTally;
  /** From the first due time to the last answer. */
  elapsedMs: number;
  /** Turns in flight, sampled every 250 ms over the offering window (not the drain after it). */
  inFlightSamples: number[];
  worstSendLagMs: number;
}

export async function offerTurns(
  target: StreamedTurnTarget,
  options: { prefix: string; rate: number; durationMs: number },
): Promise<OfferedLoad> {
  const total = Math.max(1, Math.round((options.rate * options.durationMs) / 1000));
  const intervalMs = 1000 / options.rate;
  const turns: TurnSample[] = [];
  const pending = new Set<Promise<void>>();
  const inFlightSamples: number[] = [];
  const failures = new FailureTally();
  let worstSendLagMs = 0;
  const sampler = setInterval(() => inFlightSamples.push(pending.size), 250);
  const started = performance.now();
  try {
    for (let i = 0; i < total; i++) {
      const dueAt = started + i * intervalMs;
      const wait = dueAt - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      worstSendLagMs = Math.max(worstSendLagMs, performance.now() - dueAt);
      const tag = `${options.prefix}-${i}`;
      const turn = streamedTurn(target, tag).then(
        () => void turns.push({ tag, ms: performance.now() - dueAt }),
        (err: unknown) => failures.add(err),
      );
      const tracked = turn.finally(() => pending.delete(tracked));
      pending.add(tracked);
    }
  } finally {
    clearInterval(sampler);
  }
  await Promise.all(pending);
  return {
    turns,
    errors: failures.total,
    failures,
    elapsedMs: performance.now() - started,
    inFlightSamples,
    worstSendLagMs,
  };
}

/** Model calls and time by turn tag, as llm-sim served them (`GET /_sim/model-time`). */
export async function modelTimes(llmSimUrl: string): Promise<Map<string, { calls: number; ms: number }>> {
  const body = (await (await fetch(`${llmSimUrl}/_sim/model-time`)).json()) as {
    turns: Record<string, { calls: number; ms: number }>;
  };
  return new Map(Object.entries(body.turns));
}
