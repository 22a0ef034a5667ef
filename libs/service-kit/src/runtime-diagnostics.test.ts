import { afterEach, describe, expect, it } from 'vitest';
import {
  RUNTIME_DIAGNOSTICS_PATH,
  RuntimeDiagnosticsConfig,
  startRuntimeDiagnostics,
  type RuntimeDiagnostics,
  type RuntimeSnapshot,
} from './runtime-diagnostics.js';
import { loadConfig, ConfigError } from './config.js';

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a synchronous stretch, as a big JSON.stringify or a sync hash would be
  }
}

describe('runtime diagnostics', () => {
  let running: RuntimeDiagnostics | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  const url = (): string => `http://127.0.0.1:${running!.port}${RUNTIME_DIAGNOSTICS_PATH}`;
  const read = async (method: 'GET' | 'POST'): Promise<RuntimeSnapshot> =>
    (await (await fetch(url(), { method })).json()) as RuntimeSnapshot;

  it('reports a stall of the event loop and garbage-collection pauses, and starts a new window on POST', async () => {
    running = await startRuntimeDiagnostics({ port: 0, host: '127.0.0.1' });
    await tick(50);
    blockFor(120);
    await tick(30);
    // Enough short-lived garbage for the young generation to be collected a few times.
    let kept = 0;
    for (let i = 0; i < 200; i++) kept += Array.from({ length: 20_000 }, (_, j) => ({ j })).length;
    expect(kept).toBe(4_000_000);
    let snapshot = await read('GET');
    for (let i = 0; i < 50 && snapshot.gc.count === 0; i++) {
      await tick(20);
      snapshot = await read('GET');
    }
    expect(snapshot.pid).toBe(process.pid);
    // The timer that should have fired every 10 ms waited behind the 120 ms stretch.
    expect(snapshot.eventLoopDelayMs.max).toBeGreaterThanOrEqual(100);
    expect(snapshot.eventLoopDelayMs.samples).toBeGreaterThan(0);
    expect(snapshot.gc.count).toBeGreaterThan(0);
    expect(snapshot.gc.totalMs).toBeGreaterThan(0);
    expect(snapshot.gc.maxMs).toBeLessThanOrEqual(snapshot.gc.totalMs);
    expect(Object.values(snapshot.gc.byKind).reduce((n, k) => n + k.count, 0)).toBe(snapshot.gc.count);
    expect(snapshot.cpuMs).toBeGreaterThanOrEqual(100);

    const closed = await read('POST');
    expect(closed.eventLoopDelayMs.max).toBeGreaterThanOrEqual(100);
    const fresh = await read('GET');
    // The new window began after the stall and the busy work: it counts neither.
    expect(fresh.windowMs).toBeLessThan(closed.windowMs);
    expect(fresh.cpuMs).toBeLessThan(closed.cpuMs);
  });

  it('answers 404 elsewhere', async () => {
    running = await startRuntimeDiagnostics({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`http://127.0.0.1:${running.port}/metrics`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it('is off unless a port is set, and refuses a port that is not one', () => {
    expect(loadConfig(RuntimeDiagnosticsConfig, {}).RUNTIME_DIAGNOSTICS_PORT).toBeUndefined();
    expect(loadConfig(RuntimeDiagnosticsConfig, { RUNTIME_DIAGNOSTICS_PORT: '0' }).RUNTIME_DIAGNOSTICS_PORT).toBe(0);
    expect(() => loadConfig(RuntimeDiagnosticsConfig, { RUNTIME_DIAGNOSTICS_PORT: 'http' })).toThrow(ConfigError);
  });
});
