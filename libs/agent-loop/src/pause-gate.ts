import type { EventEmitter } from './events.js';
import type { LoopHooks } from './hooks.js';
import type { RunControl } from './run-control.js';

/**
 * Before a step: asks the `pauseCheck` hook, and while the run is paused waits until it is
 * resumed or its signal aborts (the caller then sees the signal and stops).
 */
export async function waitIfPaused(
  iteration: number,
  hooks: LoopHooks,
  control: RunControl,
  events: EventEmitter,
  signal: AbortSignal,
): Promise<void> {
  if (hooks.pauseCheck) {
    try {
      const check = await hooks.pauseCheck({ iteration });
      if (check.pause) control.pause(check.reason);
    } catch (err) {
      events.emit({ type: 'hook_error', hook: 'pauseCheck', message: (err as Error)?.message ?? String(err) });
    }
  }
  if (!control.isPaused) return;
  events.emit({ type: 'state_change', state: 'paused', reason: control.pauseReason });
  await Promise.race([
    control.waitUntilResumed(),
    new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
  ]);
  if (!signal.aborted) events.emit({ type: 'state_change', state: 'running', reason: 'resumed' });
}
