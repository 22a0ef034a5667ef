// The floor of the platform's design (libs/bench-kit skeleton/, bench/peers README): benchmarks
// compare the platform with it, so it must really make the exchanges and durable writes it claims,
// and a broken part must fail a turn rather than hang it.
import { startSkeleton, type Skeleton } from '@platform/bench-kit';
import { startNatsServer, startPlatform, type NatsServerHandle, type Platform } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_SECRET } from './support.js';

let nats: NatsServerHandle;
let model: Platform;
let skeleton: Skeleton;
let db: pg.Client;

beforeAll(async () => {
  nats = await startNatsServer();
  const postgresUrl = await createSuiteDatabase('design-floor');
  model = await startPlatform({ natsUrl: nats.url, databaseUrl: postgresUrl, redisUrl: await allocateSuiteRedis(), jwtSecret: JWT_SECRET, apps: ['llm-sim'] });
  skeleton = await startSkeleton({ infra: { descriptor: { postgresUrl, natsUrl: nats.url } }, model: { baseURL: `${model.llmSimUrl!}/v1`, apiKey: 'sim-key' } });
  db = new pg.Client({ connectionString: postgresUrl });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await skeleton?.stop();
  await model?.stop();
  await nats?.stop();
});

describe('the floor of the design', () => {
  it('runs the calculator turn through its four processes, recording, journaling, appending and finishing each run', async () => {
    await Promise.all(Array.from({ length: 6 }, () => skeleton.turn()));
    const runs = await db.query<{ status: string; steps: number; result: string }>('SELECT status, jsonb_array_length(journal) AS steps, result FROM skeleton.runs');
    expect(runs.rows).toHaveLength(6);
    for (const run of runs.rows) expect(run).toEqual({ status: 'done', steps: 3, result: expect.stringContaining('= 84') as unknown });
    const messages = await db.query<{ roles: string[] }>(`SELECT array_agg(message->>'role' ORDER BY seq) AS roles FROM skeleton.messages GROUP BY conversation`);
    expect(messages.rows).toHaveLength(6);
    for (const conversation of messages.rows) expect(conversation.roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const cpu = await skeleton.cpuMs();
    expect([...cpu.keys()].sort()).toEqual(['skeleton api', 'skeleton memory', 'skeleton orchestrator', 'skeleton tool']);
    for (const ms of cpu.values()) expect(ms).toBeGreaterThan(0);
  });

  it('fails a turn at once when its tool runner is gone, and records no finished run for it', async () => {
    const finishedBefore = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM skeleton.runs WHERE status = 'done'`)).rows[0]!.n;
    await skeleton.stopRole('tool');
    // NATS answers "no responders" at once: the turn fails instead of waiting out its 30 s timeout.
    await expect(skeleton.turn()).rejects.toThrow(/^HTTP 503 .*no responders/i);
    expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM skeleton.runs WHERE status = 'done'`)).rows[0]!.n).toBe(finishedBefore);
  });
});
