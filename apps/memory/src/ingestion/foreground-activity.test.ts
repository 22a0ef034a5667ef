import { describe, expect, it } from 'vitest';
import { ForegroundActivity } from './foreground-activity.js';

/** A call that runs until `finish` is called. */
function heldCall(activity: ForegroundActivity): { finish(): void; done: Promise<string> } {
  let finish!: () => void;
  const held = new Promise<void>((resolve) => (finish = resolve));
  return { finish, done: activity.track(async () => (await held, 'answered')) };
}

/** Resolves to how long `promise` took, in ms. */
async function timed(promise: Promise<unknown>): Promise<number> {
  const started = performance.now();
  await promise;
  return performance.now() - started;
}

describe('ForegroundActivity', () => {
  it('is quiet at once when no call runs, or when the bound is 0', async () => {
    const activity = new ForegroundActivity();
    expect(await timed(activity.quiet(5_000))).toBeLessThan(1_000);
    const call = heldCall(activity);
    expect(await timed(activity.quiet(0))).toBeLessThan(1_000);
    call.finish();
    await call.done;
  });

  it('counts running calls and passes their results and errors through', async () => {
    const activity = new ForegroundActivity();
    const a = heldCall(activity);
    const b = heldCall(activity);
    expect(activity.running).toBe(2);
    a.finish();
    expect(await a.done).toBe('answered');
    expect(activity.running).toBe(1);
    b.finish();
    await b.done;
    await expect(activity.track(() => Promise.reject(new Error('recall failed')))).rejects.toThrow('recall failed');
    expect(activity.running).toBe(0);
  });

  it('wakes every waiter when the last running call ends, not before', async () => {
    const activity = new ForegroundActivity();
    const first = heldCall(activity);
    const second = heldCall(activity);
    const woken: string[] = [];
    const waiters = [
      activity.quiet(30_000).then(() => woken.push('one')),
      activity.quiet(30_000).then(() => woken.push('two')),
    ];
    first.finish();
    await first.done;
    await new Promise((r) => setTimeout(r, 50));
    expect(woken).toEqual([]);
    second.finish();
    await second.done;
    await Promise.all(waiters);
    expect(woken.sort()).toEqual(['one', 'two']);
  });

  it('stops waiting after the bound while calls keep running', async () => {
    const activity = new ForegroundActivity();
    const call = heldCall(activity);
    const waited = await timed(activity.quiet(150));
    expect(waited).toBeGreaterThanOrEqual(140);
    expect(waited).toBeLessThan(5_000);
    expect(activity.running).toBe(1);
    call.finish();
    await call.done;
  });
});
