import { describe, expect, it } from 'vitest';
import type { TakenSteer } from '../journal/run-steers.js';
import { SteerIntake, SteerNotices } from './steering.js';

// The intake's decisions; the take itself (Postgres, fenced by the lease) and the whole path are
// tested through the real services in test/e2e/src/steer.test.ts.

const run = { runId: 'run-a', tenantId: 't', conversationId: 'c', epoch: 1 };

function intake(options: { earlier?: TakenSteer[]; replaying?: () => boolean; waiting?: TakenSteer[][] } = {}) {
  const notices = new SteerNotices();
  const takes: number[] = [];
  const failures: unknown[] = [];
  const waiting = [...(options.waiting ?? [])];
  const steering = new SteerIntake({
    run,
    notices,
    earlier: options.earlier ?? [],
    replaying: options.replaying ?? (() => false),
    failed: (error) => failures.push(error),
    steers: {
      take: (_run, iteration) => {
        takes.push(iteration);
        const next = waiting.shift();
        if (next === undefined) return Promise.reject(new Error('the store is down'));
        return Promise.resolve(next.map((s) => ({ ...s, iteration })));
      },
    },
  });
  return { steering, notices, takes, failures };
}

const steer = (runId: string, content: string, iteration = 0): TakenSteer => ({ runId, content, iteration });

describe('SteerIntake', () => {
  it('looks once when the attempt starts, then only after a notice', async () => {
    const { steering, notices, takes } = intake({ waiting: [[], [steer('s1', 'window table')]] });
    expect(await steering.incoming({ iteration: 1 })).toEqual([]);
    expect(await steering.incoming({ iteration: 2 })).toEqual([]);
    notices.notice();
    expect(await steering.incoming({ iteration: 3 })).toEqual([{ role: 'user', content: 'window table' }]);
    expect(await steering.incoming({ iteration: 4 })).toEqual([]);
    expect(takes).toEqual([1, 3]);
  });

  it('takes nothing while the journal replays, and puts back what an earlier attempt took, at its place', async () => {
    let replaying = true;
    const { steering, takes } = intake({
      earlier: [steer('s1', 'first', 2), steer('s2', 'second', 2), steer('s3', 'later', 3)],
      replaying: () => replaying,
      waiting: [[steer('s4', 'new')]],
    });
    expect(await steering.incoming({ iteration: 1 })).toEqual([]);
    expect((await steering.incoming({ iteration: 2 })).map((m) => m.content)).toEqual(['first', 'second']);
    replaying = false;
    expect((await steering.incoming({ iteration: 3 })).map((m) => m.content)).toEqual(['later', 'new']);
    expect(takes).toEqual([3]);
  });

  it('reports a failed take (the attempt stops) and still puts back the earlier ones', async () => {
    const { steering, failures } = intake({ earlier: [steer('s1', 'first', 1)] });
    expect((await steering.incoming({ iteration: 1 })).map((m) => m.content)).toEqual(['first']);
    expect(failures).toHaveLength(1);
  });

  it('a notice during a look is kept for the next one', async () => {
    const { steering, notices, takes } = intake({ waiting: [[], []] });
    const looking = steering.incoming({ iteration: 1 });
    notices.notice();
    await looking;
    await steering.incoming({ iteration: 2 });
    expect(takes).toEqual([1, 2]);
  });
});
