import { PlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../journal/run-records.js';
import { MultitaskAdmission, multitaskPolicyOf } from './multitask.js';

// The policy's two halves around a message's admission; the stops themselves (Postgres, the
// running loop) are tested through the real services in test/e2e/src/multitask.test.ts.

const running = { runId: 'run-a', tenantId: 't', conversationId: 'c', status: 'running' } as RunRecord;

function admission(inFlight: RunRecord | undefined) {
  const asked: string[] = [];
  const multitask = new MultitaskAdmission({
    stops: { inFlight: () => Promise.resolve(inFlight) },
    cancellation: {
      interrupt: (_t, runId, by) => (asked.push(`interrupt ${runId} by ${by}`), Promise.resolve(true)),
      rollback: (_t, runId, by) => (asked.push(`rollback ${runId} by ${by}`), Promise.resolve(true)),
      steer: (_t, runId, by) => (asked.push(`steer ${runId} by ${by}`), Promise.resolve(by !== 'run-late')),
    },
  });
  return { multitask, asked };
}

describe('multitaskPolicyOf', () => {
  it("takes the message's, else the agent's, else enqueue; refuses an unknown one", () => {
    expect(multitaskPolicyOf('reject', 'interrupt')).toBe('reject');
    expect(multitaskPolicyOf('', 'interrupt')).toBe('interrupt');
    expect(multitaskPolicyOf(undefined, undefined)).toBe('enqueue');
    expect(() => multitaskPolicyOf('shout', undefined)).toThrow(/not one of enqueue, reject, interrupt, rollback/);
  });
});

describe('MultitaskAdmission', () => {
  it('refuses a reject with RUN_IN_PROGRESS naming the run in flight', async () => {
    const { multitask } = admission(running);
    const refused = await multitask.before('reject', running).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PlatformError);
    expect(refused).toMatchObject({ code: 'RUN_IN_PROGRESS', details: { runId: 'run-a', status: 'running' } });
  });

  it('lets every policy through when nothing is in flight, and asks nothing', async () => {
    const { multitask, asked } = admission(undefined);
    for (const policy of ['reject', 'interrupt', 'rollback', 'steer'] as const) {
      const inFlight = await multitask.before(policy, running);
      await multitask.after(policy, inFlight, 'run-b');
    }
    expect(asked).toEqual([]);
  });

  it('asks the run in flight to stop for interrupt and rollback, never for enqueue, never itself', async () => {
    const { multitask, asked } = admission(running);
    for (const policy of ['enqueue', 'interrupt', 'rollback'] as const)
      await multitask.after(policy, await multitask.before(policy, running), 'run-b');
    await multitask.after('interrupt', running, 'run-a');
    expect(asked).toEqual(['interrupt run-a by run-b', 'rollback run-a by run-b']);
  });

  it('asks the run in flight to take a steer and names it; a steer it can no longer take runs on its own', async () => {
    const { multitask, asked } = admission(running);
    expect(await multitask.after('steer', await multitask.before('steer', running), 'run-b')).toBe(running);
    expect(await multitask.after('steer', running, 'run-late')).toBeUndefined();
    expect(await multitask.after('interrupt', running, 'run-c')).toBeUndefined();
    expect(asked).toEqual(['steer run-a by run-b', 'steer run-a by run-late', 'interrupt run-a by run-c']);
  });
});
