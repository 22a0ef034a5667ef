import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../journal/run-records.js';
import { answerOf } from './steered-answer.js';

// Which run answers a message; the whole path (the take, the waits across replicas) is tested
// through the real services in test/e2e/src/steer.test.ts and steer-replicas.test.ts.

const record = (runId: string, extra: Partial<RunRecord> = {}): RunRecord =>
  ({
    runId,
    tenantId: 't',
    conversationId: 'c',
    status: 'completed',
    stopReason: 'final_answer',
    result: null,
    createdAt: new Date(0),
    finishedAt: new Date(0),
    ...extra,
  }) as RunRecord;

const host = record('run-a', { status: 'running' });
const hostDone = record('run-a', { result: { response: 'booked, window table' } as RunRecord['result'] });
const taken = record('run-s', { stopReason: 'steered', steers: 'run-a' });
const ownTurn = record('run-s', { steers: 'run-a', result: { response: 'own answer' } as RunRecord['result'] });

function deps(runs: Record<string, RunRecord>, ends: Record<string, Promise<RunRecord>>) {
  return {
    queue: { waitForRun: (_t: string, _c: string, runId: string) => ends[runId] ?? new Promise<RunRecord>(() => {}) },
    records: { get: (_t: string, runId: string) => Promise.resolve(runs[runId]) },
  };
}
const signal = new AbortController().signal;
const scope = { tenantId: 't', conversationId: 'c', messageRunId: 'run-s', signal };

describe('answerOf', () => {
  it("answers a steer the run took with that run's outcome, steered, as soon as the run ends", async () => {
    const answer = await answerOf(deps({ 'run-s': taken }, { 'run-a': Promise.resolve(hostDone) }), {
      ...scope,
      own: new Promise(() => {}),
      host,
    });
    expect(answer).toMatchObject({
      runId: 'run-a',
      response: 'booked, window table',
      steered: true,
      messageRunId: 'run-s',
    });
  });

  it('answers a steer the run did not take with its own turn', async () => {
    const answer = await answerOf(
      deps({ 'run-s': record('run-s', { status: 'queued', steers: 'run-a' }) }, { 'run-a': Promise.resolve(hostDone) }),
      {
        ...scope,
        own: Promise.resolve(ownTurn),
        host,
      },
    );
    expect(answer).toMatchObject({ runId: 'run-s', response: 'own answer' });
    expect(answer.steered).toBeUndefined();
  });

  it('answers a retry attached to a taken steer (no run named) with the run it joined', async () => {
    const answer = await answerOf(deps({}, { 'run-a': Promise.resolve(hostDone) }), {
      ...scope,
      own: Promise.resolve(taken),
    });
    expect(answer).toMatchObject({ runId: 'run-a', steered: true, messageRunId: 'run-s' });
  });

  it('answers any other message with its own run', async () => {
    const answer = await answerOf(deps({}, {}), { ...scope, own: Promise.resolve(hostDone) });
    expect(answer).toMatchObject({ runId: 'run-a', response: 'booked, window table' });
    expect(answer.steered).toBeUndefined();
  });
});
