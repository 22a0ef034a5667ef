// The floor of the platform's design (bench/kit skeleton/, bench/peers README): benchmarks
// compare the platform with it, so it must really make the exchanges and durable writes it claims,
// and a broken part must fail a turn rather than hang it. With the product's duties on, each duty
// must really be done: the caller's key checked, the lease held and its token written, the events
// kept, every turn learned, the trace carried through all four processes.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { CALCULATOR_PROMPT, SKELETON_DUTIES, startSkeleton, type Skeleton } from '@platform/bench-kit';
import {
  startNatsServer,
  startOtlpCollector,
  startPlatform,
  type NatsServerHandle,
  type OtlpCollector,
  type Platform,
} from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_SECRET } from './support.js';

let nats: NatsServerHandle;
let model: Platform;
let skeleton: Skeleton;
let db: pg.Client;
let redisUrl: string;
let postgresUrl: string;

beforeAll(async () => {
  nats = await startNatsServer();
  postgresUrl = await createSuiteDatabase('design-floor');
  redisUrl = await allocateSuiteRedis();
  model = await startPlatform({
    natsUrl: nats.url,
    databaseUrl: postgresUrl,
    redisUrl,
    jwtSecret: JWT_SECRET,
    apps: ['llm-sim'],
  });
  skeleton = await startSkeleton(servers());
  db = new pg.Client({ connectionString: postgresUrl });
  await db.connect();
});

function servers(databaseUrl = postgresUrl) {
  return {
    infra: { descriptor: { postgresUrl: databaseUrl, natsUrl: nats.url, redisUrl } },
    model: { baseURL: `${model.llmSimUrl!}/v1`, apiKey: 'sim-key' },
  };
}

afterAll(async () => {
  await db?.end();
  await skeleton?.stop();
  await model?.stop();
  await nats?.stop();
});

describe('the floor of the design', () => {
  it('runs the calculator turn through its four processes, recording, journaling, appending and finishing each run', async () => {
    await Promise.all(Array.from({ length: 6 }, () => skeleton.turn()));
    const runs = await db.query<{ status: string; steps: number; result: string }>(
      'SELECT status, jsonb_array_length(journal) AS steps, result FROM skeleton.runs',
    );
    expect(runs.rows).toHaveLength(6);
    for (const run of runs.rows)
      expect(run).toEqual({ status: 'done', steps: 3, result: expect.stringContaining('= 84') as unknown });
    const messages = await db.query<{ roles: string[] }>(
      `SELECT array_agg(message->>'role' ORDER BY seq) AS roles FROM skeleton.messages GROUP BY conversation`,
    );
    expect(messages.rows).toHaveLength(6);
    for (const conversation of messages.rows)
      expect(conversation.roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const cpu = await skeleton.cpuMs();
    expect([...cpu.keys()].sort()).toEqual([
      'skeleton api',
      'skeleton memory',
      'skeleton orchestrator',
      'skeleton tool',
    ]);
    for (const ms of cpu.values()) expect(ms).toBeGreaterThan(0);
  });

  it('fails a turn at once when its tool runner is gone, and records no finished run for it', async () => {
    const finishedBefore = (
      await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM skeleton.runs WHERE status = 'done'`)
    ).rows[0]!.n;
    await skeleton.stopRole('tool');
    // NATS answers "no responders" at once: the turn fails instead of waiting out its 30 s timeout.
    await expect(skeleton.turn()).rejects.toThrow(/^HTTP 503 .*no responders/i);
    expect(
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM skeleton.runs WHERE status = 'done'`)).rows[0]!.n,
    ).toBe(finishedBefore);
  });
});

describe("the floor of the design with the product's duties", () => {
  let dutiful: Skeleton;
  let collector: OtlpCollector;
  let dutiesDb: pg.Client;

  beforeAll(async () => {
    collector = await startOtlpCollector();
    const databaseUrl = await createSuiteDatabase('design-floor-duties');
    dutiful = await startSkeleton(servers(databaseUrl), {
      duties: SKELETON_DUTIES,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
    dutiesDb = new pg.Client({ connectionString: databaseUrl });
    await dutiesDb.connect();
  });

  afterAll(async () => {
    await dutiesDb?.end();
    await dutiful?.stop();
    await collector?.stop();
  });

  it('refuses a caller without a known API key before any run starts', async () => {
    const { apiUrl } = dutiful;
    for (const authorization of [undefined, 'Bearer not-a-key', 'Basic abc']) {
      const response = await fetch(apiUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ conversation: 'intruder', content: 'What is 6 * 7?' }),
      });
      expect(response.status).toBe(401);
    }
    expect((await dutiesDb.query('SELECT 1 FROM skeleton.runs')).rowCount).toBe(0);
  });

  it('leases each conversation for its turn, keeps the run events, learns every turn and traces it through all four processes', async () => {
    await Promise.all(Array.from({ length: 6 }, () => dutiful.turn()));
    const runs = await dutiesDb.query<{ run_id: string; fence: string; status: string }>(
      'SELECT run_id, fence, status FROM skeleton.runs',
    );
    expect(runs.rows).toHaveLength(6);
    for (const run of runs.rows) expect(run).toMatchObject({ fence: '1', status: 'done' });

    const redis = new Redis(redisUrl);
    try {
      // Every lease was released; each conversation's fencing counter remains.
      expect(await redis.keys('skeleton:*:lease')).toEqual([]);
      expect(await redis.keys('skeleton:*:fence')).toHaveLength(6);
    } finally {
      redis.disconnect();
    }

    const nc = await connect({ servers: nats.url });
    try {
      const events = await (await jetstreamManager(nc)).streams.info('SKELETON_RUN_EVENTS');
      expect(events.state.messages).toBe(6);
    } finally {
      await nc.close();
    }

    await dutiful.drainLearning();
    const learned = await dutiesDb.query<{ run_id: string; fact: string; dimensions: number }>(
      'SELECT run_id, fact, vector_dims(embedding) AS dimensions FROM skeleton.learned',
    );
    expect(learned.rows.map((row) => row.run_id).sort()).toEqual(runs.rows.map((run) => run.run_id).sort());
    for (const row of learned.rows) expect(row).toMatchObject({ fact: CALCULATOR_PROMPT, dimensions: 256 });

    // One trace per turn, with spans from every process: the api's HTTP server span at its root.
    const spans = await collector.waitForSpans(
      (all) => new Set(all.filter((s) => s.name === 'calculator').map((s) => s.traceId)).size === 6,
      10_000,
    );
    const turnTrace = spans.find((s) => s.name === 'calculator')!.traceId;
    const services = new Set(spans.filter((s) => s.traceId === turnTrace).map((s) => s.serviceName));
    expect([...services].sort()).toEqual(['skeleton-api', 'skeleton-memory', 'skeleton-orchestrator', 'skeleton-tool']);
  });
});
