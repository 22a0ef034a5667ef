// Reads every service's runtime diagnostics (event-loop delay, GC pauses: service-kit's
// RUNTIME_DIAGNOSTICS_PORT) over one load phase: a POST starts the window, a POST at the end reads it.
import { RUNTIME_DIAGNOSTICS_PATH, type RuntimeSnapshot } from '@platform/service-kit';

export class RuntimeWindows {
  /** @param ports each service's diagnostics port (from its ready line). */
  constructor(private readonly ports: ReadonlyMap<string, number>) {}

  /** Starts a window in every service. */
  async begin(): Promise<void> {
    await this.readAll();
  }

  /** Every service's window since `begin`, and a new one starts. */
  async end(): Promise<Map<string, RuntimeSnapshot>> {
    return this.readAll();
  }

  private async readAll(): Promise<Map<string, RuntimeSnapshot>> {
    const entries = await Promise.all(
      [...this.ports].map(async ([service, port]) => {
        const response = await fetch(`http://127.0.0.1:${port}${RUNTIME_DIAGNOSTICS_PATH}`, { method: 'POST' });
        if (!response.ok) throw new Error(`${service}'s runtime diagnostics answered ${response.status}`);
        return [service, (await response.json()) as RuntimeSnapshot] as const;
      }),
    );
    return new Map(entries);
  }
}

/** Two windows of the same services as one (the same rate in two rounds): the worse delay figures, the sums of pauses and CPU. */
export function mergeRuntime(
  a: Map<string, RuntimeSnapshot>,
  b: Map<string, RuntimeSnapshot>,
): Map<string, RuntimeSnapshot> {
  const merged = new Map(a);
  for (const [service, next] of b) {
    const prev = a.get(service);
    if (!prev) {
      merged.set(service, next);
      continue;
    }
    const byKind = { ...prev.gc.byKind };
    for (const [kind, k] of Object.entries(next.gc.byKind)) {
      const p = byKind[kind];
      byKind[kind] = p
        ? { count: p.count + k.count, totalMs: p.totalMs + k.totalMs, maxMs: Math.max(p.maxMs, k.maxMs) }
        : k;
    }
    merged.set(service, {
      pid: next.pid,
      windowMs: prev.windowMs + next.windowMs,
      eventLoopDelayMs: {
        p50: Math.max(prev.eventLoopDelayMs.p50, next.eventLoopDelayMs.p50),
        p99: Math.max(prev.eventLoopDelayMs.p99, next.eventLoopDelayMs.p99),
        max: Math.max(prev.eventLoopDelayMs.max, next.eventLoopDelayMs.max),
        mean:
          (prev.eventLoopDelayMs.mean * prev.eventLoopDelayMs.samples +
            next.eventLoopDelayMs.mean * next.eventLoopDelayMs.samples) /
          Math.max(1, prev.eventLoopDelayMs.samples + next.eventLoopDelayMs.samples),
        samples: prev.eventLoopDelayMs.samples + next.eventLoopDelayMs.samples,
      },
      gc: {
        count: prev.gc.count + next.gc.count,
        totalMs: prev.gc.totalMs + next.gc.totalMs,
        maxMs: Math.max(prev.gc.maxMs, next.gc.maxMs),
        byKind,
      },
      cpuMs: prev.cpuMs + next.cpuMs,
    });
  }
  return merged;
}
