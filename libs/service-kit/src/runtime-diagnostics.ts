// Where a service's time goes besides its own work: how late its event loop ran timers (a stall
// there delays every request the process holds) and how long garbage collection paused it. Off
// unless RUNTIME_DIAGNOSTICS_PORT is set: nothing is sampled or observed then.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  constants,
  monitorEventLoopDelay,
  performance,
  PerformanceObserver,
  type ELDHistogram,
  type PerformanceEntry,
} from 'node:perf_hooks';
import { z } from 'zod';
import { env } from './config.js';
import { listenFailure } from './listen-failure.js';

/** The settings (every service reads them through runService). */
export const RuntimeDiagnosticsConfig = z.object({
  /** Serve the diagnostics on this port (0: any free port, announced in the ready line); unset: off. */
  RUNTIME_DIAGNOSTICS_PORT: env.port().optional(),
  RUNTIME_DIAGNOSTICS_HOST: z.string().default('127.0.0.1'),
});

/** The path of the snapshot (GET reads it; POST reads it and starts a new window). */
export const RUNTIME_DIAGNOSTICS_PATH = '/diagnostics/runtime';

/** What the process went through since the window began. */
export interface RuntimeSnapshot {
  pid: number;
  /** Length of the window, in ms. */
  windowMs: number;
  /** How late the event loop ran a 10 ms timer, in ms (the delay any callback waited on top of its own work). */
  eventLoopDelayMs: { p50: number; p99: number; max: number; mean: number; samples: number };
  /** Garbage-collection pauses (the main thread stopped), in ms, in all and by kind. */
  gc: {
    count: number;
    totalMs: number;
    maxMs: number;
    byKind: Record<string, { count: number; totalMs: number; maxMs: number }>;
  };
  /** CPU time of the process in the window (user + system), in ms. */
  cpuMs: number;
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** The sampler without a server: event-loop delay and GC pauses since the last `take`. */
class RuntimeSampler {
  private readonly delay: ELDHistogram;
  private readonly observer: PerformanceObserver;
  private gc: RuntimeSnapshot['gc'] = RuntimeSampler.emptyGc();
  private since = performance.now();
  private cpuSince = process.cpuUsage();

  constructor() {
    this.delay = monitorEventLoopDelay({ resolution: 10 });
    this.delay.enable();
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) this.recordGc(entry);
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  private static emptyGc(): RuntimeSnapshot['gc'] {
    return { count: 0, totalMs: 0, maxMs: 0, byKind: {} };
  }

  private recordGc(entry: PerformanceEntry): void {
    const kind = GC_KINDS[(entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
    const byKind = (this.gc.byKind[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
    for (const bucket of [this.gc, byKind]) {
      bucket.count += 1;
      bucket.totalMs += entry.duration;
      bucket.maxMs = Math.max(bucket.maxMs, entry.duration);
    }
  }

  /** The window so far; with `reset`, a new window starts. */
  read(reset: boolean): RuntimeSnapshot {
    const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
    const samples = this.delay.count;
    const cpu = process.cpuUsage(this.cpuSince);
    const snapshot: RuntimeSnapshot = {
      pid: process.pid,
      windowMs: performance.now() - this.since,
      eventLoopDelayMs: samples
        ? {
            p50: ms(this.delay.percentile(50)),
            p99: ms(this.delay.percentile(99)),
            max: ms(this.delay.max),
            mean: ms(this.delay.mean),
            samples,
          }
        : { p50: 0, p99: 0, max: 0, mean: 0, samples: 0 },
      gc: structuredClone(this.gc),
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
    if (reset) {
      this.delay.reset();
      this.gc = RuntimeSampler.emptyGc();
      this.since = performance.now();
      this.cpuSince = process.cpuUsage();
    }
    return snapshot;
  }

  stop(): void {
    this.delay.disable();
    this.observer.disconnect();
  }
}

export interface RuntimeDiagnostics {
  /** The port it listens on. */
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Serves {@link RuntimeSnapshot}s over HTTP on `host:port`: `GET /diagnostics/runtime` reads the
 * current window, `POST /diagnostics/runtime` reads it and starts a new one (a benchmark brackets
 * each load phase with it). Meant for loopback or a pod-internal port, like a debug endpoint.
 */
export async function startRuntimeDiagnostics(settings: { port: number; host: string }): Promise<RuntimeDiagnostics> {
  const sampler = new RuntimeSampler();
  const server: Server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== RUNTIME_DIAGNOSTICS_PATH || (req.method !== 'GET' && req.method !== 'POST')) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ error: { code: 'NOT_FOUND', message: `only GET and POST ${RUNTIME_DIAGNOSTICS_PATH}` } }),
        );
      return;
    }
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sampler.read(req.method === 'POST')));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, resolve);
    });
  } catch (err) {
    sampler.stop();
    throw await listenFailure(settings.host, settings.port, 'RUNTIME_DIAGNOSTICS_PORT', err);
  }
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        sampler.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
