import { describe, expect, it } from 'vitest';
import { systemClock } from './clock.js';
import type { FireSettlement, FireStore } from './fire-store.js';
import { SettlementBatcher } from './settlement-batcher.js';
import type { FireRow } from './task-row.js';

/** A store that records each group it is asked to write and holds each write until released. */
class RecordingStore {
  readonly writes: string[][] = [];
  private release: (() => void) | undefined;
  hold = false;

  async settleMany(items: { claimed: FireRow }[]): Promise<boolean[]> {
    this.writes.push(items.map((i) => i.claimed.fire_id));
    if (this.hold) await new Promise<void>((resolve) => (this.release = resolve));
    return items.map((i) => !i.claimed.fire_id.endsWith('-lost'));
  }

  finishWrite(): void {
    this.release?.();
  }
}

const fire = (id: string) => ({ fire_id: id }) as FireRow;
const succeeded: FireSettlement = { status: 'succeeded', runId: '', result: null, errorCode: '', errorMessage: '' };
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('SettlementBatcher', () => {
  it('writes a lone outcome at once, and groups the outcomes that arrive during a write', async () => {
    const store = new RecordingStore();
    const batcher = new SettlementBatcher(store as unknown as FireStore, systemClock, 100);
    store.hold = true;
    const first = batcher.settle(fire('f1'), succeeded);
    await tick();
    const later = ['f2', 'f3', 'f4-lost'].map((id) => batcher.settle(fire(id), succeeded));
    store.hold = false;
    store.finishWrite();
    expect(await first).toBe(true);
    expect(await Promise.all(later)).toEqual([true, true, false]);
    expect(store.writes).toEqual([['f1'], ['f2', 'f3', 'f4-lost']]);
  });

  it('writes nothing while the replica is starting a burst, then the waiting outcomes together', async () => {
    const store = new RecordingStore();
    let starting = true;
    const batcher = new SettlementBatcher(store as unknown as FireStore, systemClock, 2, () => starting);
    const outcomes = ['f1', 'f2', 'f3'].map((id) => batcher.settle(fire(id), succeeded));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(store.writes).toEqual([]);
    starting = false;
    expect(await Promise.all(outcomes)).toEqual([true, true, true]);
    // Groups are still bounded by maxBatch.
    expect(store.writes).toEqual([['f1', 'f2'], ['f3']]);
  });
});
