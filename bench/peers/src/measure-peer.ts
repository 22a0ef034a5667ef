// One round of one peer at one model latency: latency at concurrency 1, then (after an unmeasured
// ramp) throughput at full concurrency with the CPU it took, per process.
import { closedLoopFor, dutySkips, sampleProcess, type DutySkips, type LoadResult } from '@platform/bench-kit';
import { performance } from 'node:perf_hooks';
import type { Peer } from './peer.js';

export interface PhaseSettings {
  concurrency: number;
  /** Length of the concurrency-1 phase. */
  c1Ms: number;
  /** Unmeasured time at full concurrency before the throughput phase. */
  rampMs: number;
  /** Length of the throughput phase. */
  loadMs: number;
  /** llm-sim's process, whose CPU every peer's turns cost the same way (counted apart). */
  llmSimPid: number;
}

export interface PeerRound {
  c1: LoadResult;
  ramp: LoadResult;
  load: LoadResult;
  /** CPU ms of each of the peer's processes during the throughput phase (and its settling). */
  cpuMs: Map<string, number>;
  llmSimCpuMs: number;
  /** CPU ms of the bench process when the peer runs elsewhere (its HTTP client). */
  driverCpuMs: number;
  /** How long deferred work took to finish after the throughput phase. */
  settleMs: number;
  /** The duties the throughput phase's turns skipped (peers that count them: the platform). */
  skips?: DutySkips;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function ownCpu(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export async function measurePeer(peer: Peer, settings: PhaseSettings): Promise<PeerRound> {
  const turn = (): Promise<void> => peer.turn();
  gc();
  const c1 = await closedLoopFor(turn, 1, settings.c1Ms);
  const ramp = await closedLoopFor(turn, settings.concurrency, settings.rampMs);
  await peer.settle?.();
  gc();
  const dutiesBefore = await peer.duties?.();
  const before = await peer.cpuMs();
  const simBefore = (await sampleProcess(settings.llmSimPid)).cpuMs;
  const driverBefore = ownCpu();
  const load = await closedLoopFor(turn, settings.concurrency, settings.loadMs);
  const settleStarted = performance.now();
  await peer.settle?.();
  const settleMs = performance.now() - settleStarted;
  const driverCpuMs = ownCpu() - driverBefore;
  const llmSimCpuMs = (await sampleProcess(settings.llmSimPid)).cpuMs - simBefore;
  const after = await peer.cpuMs();
  const cpuMs = new Map([...after].map(([process, ms]) => [process, ms - (before.get(process) ?? 0)]));
  const skips =
    dutiesBefore && peer.duties ? dutySkips(dutiesBefore, await peer.duties(), load.latenciesMs.length) : undefined;
  return {
    c1,
    ramp,
    load,
    cpuMs,
    llmSimCpuMs,
    driverCpuMs: cpuMs.has('bench process') ? 0 : driverCpuMs,
    settleMs,
    ...(skips ? { skips } : {}),
  };
}
