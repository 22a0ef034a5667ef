// Child runs in the run journal against a real Postgres: lineage kept through claims and finish,
// children listed per tenant, live descendants found for cancelling them with their parent.
import { createLogger } from '@platform/service-kit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunRecords, type NewRun } from './run-records.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';

let pool: pg.Pool;
let records: RunRecords;
const logger = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  pool = await openJournalDatabase('child_runs', logger, 5);
  records = new RunRecords(pool);
});
afterAll(async () => {
  await pool.end();
});

function child(runId: string, parentRunId: string, chain: string[], tenantId = 'acme'): NewRun {
  return {
    ...messageRun(runId, `delegation:${runId}`, tenantId),
    profile: chain.at(-1)!,
    lineage: { parentRunId, parentCallId: `call-of-${runId}`, chain },
  };
}

describe('child runs in the journal', () => {
  it('keeps the lineage (parent, call, chain, depth) through create, claim and finish', async () => {
    await records.create(messageRun('root-1', 'team'));
    expect(await records.create(child('kid-1', 'root-1', ['default', 'researcher']))).toBe(true);
    expect(await records.create(child('kid-1', 'root-1', ['default', 'researcher']))).toBe(false); // a resumed parent finds it
    const claimed = (await records.claimNext('acme', 'delegation:kid-1', 'o1', 10_000, 1)).claimed!;
    expect(claimed.lineage).toEqual({
      parentRunId: 'root-1',
      parentCallId: 'call-of-kid-1',
      chain: ['default', 'researcher'],
    });
    const finished = await records.finish(claimed, 'completed', answeredResult('kid-1'));
    expect(finished.lineage?.chain).toEqual(['default', 'researcher']);
    expect((await records.get('acme', 'kid-1'))?.lineage).toEqual(claimed.lineage);
    expect((await records.get('acme', 'root-1'))?.lineage).toBeUndefined();
    const { rows } = await pool.query<{ depth: number }>('SELECT depth FROM runs WHERE run_id = $1', ['kid-1']);
    expect(rows[0]?.depth).toBe(1);
  });

  it("keeps a child's tool scope (a plan subtask's named tool) through create and claim, so a resumed child keeps it", async () => {
    await records.create(messageRun('root-3', 'plan'));
    const scoped: NewRun = {
      ...child('kid-3', 'root-3', ['planner', 'worker']),
      lineage: {
        parentRunId: 'root-3',
        parentCallId: 'plan0-sum-1',
        chain: ['planner', 'worker'],
        tools: ['calculator'],
      },
    };
    await records.create(scoped);
    const claimed = (await records.claimNext('acme', 'delegation:kid-3', 'o1', 10_000, 1)).claimed!;
    expect(claimed.lineage).toEqual({
      parentRunId: 'root-3',
      parentCallId: 'plan0-sum-1',
      chain: ['planner', 'worker'],
      tools: ['calculator'],
    });
    expect((await records.get('acme', 'kid-3'))?.lineage?.tools).toEqual(['calculator']);
    const { rows } = await pool.query<{ tool_scope: string[] | null }>(
      "SELECT tool_scope FROM runs WHERE run_id IN ('kid-1', 'kid-3') ORDER BY run_id",
    );
    expect(rows.map((r) => r.tool_scope)).toEqual([null, ['calculator']]);
  });

  it("lists a run's children for its tenant only, and finds every live run below it", async () => {
    await records.create(messageRun('root-2', 'team-2'));
    await records.create(child('kid-2a', 'root-2', ['default', 'a']));
    await records.create(child('kid-2b', 'root-2', ['default', 'b']));
    await records.create(child('grandkid-2', 'kid-2a', ['default', 'a', 'b']));
    const done = (await records.claimNext('acme', 'delegation:kid-2b', 'o1', 10_000, 1)).claimed!;
    await records.finish(done, 'completed', answeredResult('kid-2b'));
    expect((await records.children('acme', 'root-2')).map((r) => r.runId)).toEqual(['kid-2a', 'kid-2b']);
    expect(await records.children('other', 'root-2')).toEqual([]);
    expect((await records.liveDescendants('acme', 'root-2')).sort()).toEqual(['grandkid-2', 'kid-2a']);
    expect(await records.liveDescendants('other', 'root-2')).toEqual([]);
  });
});
