// Medians over rounds of what one peer did at one model latency.
import { median, percentile } from '@platform/testing';
import type { PeerRound } from './measure-peer.js';

export interface PeerSummary {
  key: string;
  name: string;
  /** Rounds measured. */
  rounds: number;
  p50c1: number;
  p99c1: number;
  /** Turns per second at full concurrency. */
  throughput: number;
  p50Load: number;
  p99Load: number;
  /** CPU ms per turn of the peer's own processes. */
  cpuPerTurn: number;
  llmSimCpuPerTurn: number;
  /** CPU ms per turn of each of the peer's processes (one entry for in-process peers). */
  cpuPerTurnByProcess: Map<string, number>;
  driverCpuPerTurn: number;
  settleMs: number;
  /** Failed turns over every phase of every round (a failed turn is a failed round). */
  errors: number;
  failedRounds: number;
  firstError?: string;
  /**
   * Peers that count the duties their turns skip (the platform): each round's share of
   * throughput-phase turns that skipped one, and how many rounds were valid (at most 5%). The
   * figures above come from the valid rounds only, or from all when none was (`allInvalid`).
   */
  duties?: { shares: number[]; validRounds: number; allInvalid: boolean };
}

function p99(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    99,
  );
}

export function summarize(key: string, name: string, measuredRounds: readonly PeerRound[]): PeerSummary {
  const counted = measuredRounds.filter((r) => r.skips);
  const valid = measuredRounds.filter((r) => !r.skips || r.skips.valid);
  const rounds = valid.length ? valid : measuredRounds;
  const perTurn = (r: PeerRound, ms: number): number => ms / Math.max(1, r.load.latenciesMs.length);
  const processes = [...new Set(rounds.flatMap((r) => [...r.cpuMs.keys()]))];
  const phases = rounds.flatMap((r) => [r.c1, r.ramp, r.load]);
  return {
    key,
    name,
    rounds: rounds.length,
    p50c1: median(rounds.map((r) => median(r.c1.latenciesMs))),
    p99c1: median(rounds.map((r) => p99(r.c1.latenciesMs))),
    throughput: median(rounds.map((r) => (r.load.latenciesMs.length / r.load.elapsedMs) * 1000)),
    p50Load: median(rounds.map((r) => median(r.load.latenciesMs))),
    p99Load: median(rounds.map((r) => p99(r.load.latenciesMs))),
    cpuPerTurn: median(
      rounds.map((r) =>
        perTurn(
          r,
          [...r.cpuMs.values()].reduce((a, b) => a + b, 0),
        ),
      ),
    ),
    llmSimCpuPerTurn: median(rounds.map((r) => perTurn(r, r.llmSimCpuMs))),
    cpuPerTurnByProcess: new Map(processes.map((p) => [p, median(rounds.map((r) => perTurn(r, r.cpuMs.get(p) ?? 0)))])),
    driverCpuPerTurn: median(rounds.map((r) => perTurn(r, r.driverCpuMs))),
    settleMs: median(rounds.map((r) => r.settleMs)),
    errors: phases.reduce((sum, r) => sum + r.errors, 0),
    failedRounds: rounds.filter((r) => r.c1.errors + r.ramp.errors + r.load.errors > 0).length,
    ...(phases.find((r) => r.firstError) ? { firstError: phases.find((r) => r.firstError)!.firstError } : {}),
    ...(counted.length
      ? {
          duties: {
            shares: counted.map((r) => r.skips!.share),
            validRounds: counted.filter((r) => r.skips!.valid).length,
            allInvalid: valid.length === 0,
          },
        }
      : {}),
  };
}
