// Steering's statements against a real Postgres (migrations/0023): a steer is requested only while
// the message's run is queued, taken only by the attempt that holds the run (its epoch) while the
// run is running and unsealed and not asked to stop, once, in order, at the iteration given; one
// the run did not take stays queued and the conversation's queue claims it as its own turn.
import { createLogger } from '@platform/service-kit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunRecords } from './run-records.js';
import { RunSteers } from './run-steers.js';
import { RunStops } from './run-stops.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';

let pool: pg.Pool;
let records: RunRecords;
let steers: RunSteers;
let stops: RunStops;
let counter = 0;
const logger = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  pool = await openJournalDatabase('steers', logger, 5);
  records = new RunRecords(pool);
  steers = new RunSteers(pool);
  stops = new RunStops(pool);
});
afterAll(async () => {
  await pool.end();
});

/** A conversation with a running run (claimed) and `n` queued messages behind it. */
async function conversation(n: number) {
  const conversationId = `c-steer-${++counter}`;
  const host = messageRun(`run_host_${counter}`, conversationId);
  await records.create(host);
  const claimed = (await records.claimNext('acme', conversationId, 'me', 60_000, 1)).claimed;
  if (!claimed) throw new Error('the host run was not claimed');
  const queued = [];
  for (let i = 0; i < n; i++) {
    const run = { ...messageRun(`run_msg_${counter}_${i}`, conversationId), content: `steer ${i}` };
    await records.create(run);
    queued.push(run);
  }
  return { conversationId, host: claimed, queued };
}

const statusOf = async (runId: string) => (await records.get('acme', runId))?.status;

describe('RunSteers', () => {
  it('takes the requested steers once, oldest first, at the iteration given; an earlier attempt’s are read back in order', async () => {
    const { host, queued } = await conversation(3);
    expect(await steers.request('acme', queued[1]!.runId, host.runId)).toBe(true);
    expect(await steers.request('acme', queued[0]!.runId, host.runId)).toBe(true);
    const taken = await steers.take(host, 2);
    expect(taken.map((s) => [s.content, s.iteration])).toEqual([
      ['steer 0', 2],
      ['steer 1', 2],
    ]);
    expect(await steers.take(host, 3)).toEqual([]);
    expect(await records.get('acme', queued[0]!.runId)).toMatchObject({
      status: 'completed',
      stopReason: 'steered',
      steers: host.runId,
      result: { runId: queued[0]!.runId, stopReason: 'steered' },
    });
    // Not asked to steer: stays queued, its own turn.
    expect(await statusOf(queued[2]!.runId)).toBe('queued');
    expect((await steers.taken('acme', host.runId)).map((s) => [s.runId, s.iteration])).toEqual([
      [queued[0]!.runId, 2],
      [queued[1]!.runId, 2],
    ]);
  });

  it('refuses a request for a message that is not queued any more, and another tenant’s run', async () => {
    const { host, queued } = await conversation(1);
    expect(await steers.request('other-tenant', queued[0]!.runId, host.runId)).toBe(false);
    expect(await steers.request('acme', host.runId, host.runId)).toBe(false);
    expect(await steers.request('acme', queued[0]!.runId, host.runId)).toBe(true);
    expect(await steers.request('acme', queued[0]!.runId, host.runId)).toBe(false);
  });

  it('takes nothing for an attempt that lost the run, nor once the history is sealed or a stop was asked', async () => {
    const lost = await conversation(1);
    await steers.request('acme', lost.queued[0]!.runId, lost.host.runId);
    expect(await steers.take({ ...lost.host, epoch: lost.host.epoch + 1 }, 2)).toEqual([]);
    expect(await steers.take({ ...lost.host, tenantId: 'other-tenant' }, 2)).toEqual([]);

    const sealed = await conversation(1);
    await steers.request('acme', sealed.queued[0]!.runId, sealed.host.runId);
    expect(await stops.sealHistory(sealed.host)).toBe('sealed');
    expect(await steers.take(sealed.host, 2)).toEqual([]);

    const interrupted = await conversation(1);
    await steers.request('acme', interrupted.queued[0]!.runId, interrupted.host.runId);
    expect(await stops.requestInterrupt('acme', interrupted.host.runId, 'run_newer')).toBe(true);
    expect(await steers.take(interrupted.host, 2)).toEqual([]);
    expect(await statusOf(interrupted.queued[0]!.runId)).toBe('queued');
  });

  it('a steer the run did not take is claimed as its own turn once the run ends, and can no longer be taken', async () => {
    const { conversationId, host, queued } = await conversation(1);
    await steers.request('acme', queued[0]!.runId, host.runId);
    await records.finish(host, 'completed', answeredResult(host.runId));
    const next = (await records.claimNext('acme', conversationId, 'me', 60_000, 1)).claimed;
    expect(next?.runId).toBe(queued[0]!.runId);
    expect(await steers.take(host, 2)).toEqual([]);
    expect(await statusOf(queued[0]!.runId)).toBe('running');
  });
});
