// Flushes buffered spans on the ways a service process ends. 'exit' listeners cannot await, so the
// flush has to happen earlier: when the event loop drains ('beforeExit') or when a signal arrives.

/** Upper bound on a signal-triggered flush, so a dead collector cannot keep a stopping pod alive. */
const SIGNAL_FLUSH_TIMEOUT_MS = 5_000;
const SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void work
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        resolve();
      });
  });
}

/**
 * Installs the flush-on-exit listeners. `shutdown` must be idempotent: the app's own graceful
 * shutdown usually calls `shutdownTelemetry()` as well.
 *
 * On SIGTERM/SIGINT the spans are flushed; if the app registered no handler of its own for that
 * signal, the process then ends with the signal as it would have without telemetry. If it did,
 * exiting stays the app's decision (it should await `shutdownTelemetry()` before `process.exit`).
 */
export function installExitHooks(shutdown: () => Promise<void>): void {
  process.once('beforeExit', () => {
    void shutdown().catch(() => undefined);
  });
  for (const signal of SIGNALS) {
    process.once(signal, () => {
      // `once` has already removed this listener, so any listener left belongs to the app.
      const appHandlesSignal = process.listenerCount(signal) > 0;
      void withTimeout(shutdown(), SIGNAL_FLUSH_TIMEOUT_MS).then(() => {
        if (!appHandlesSignal) process.kill(process.pid, signal);
      });
    });
  }
}
