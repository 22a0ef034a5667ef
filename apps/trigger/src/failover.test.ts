import { connectNats, type NatsConnection } from '@platform/service-kit';
import { sharedServicePki, startServiceProcess, type ServiceProcess } from '@platform/testing';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import { defineTool, serveRunner, type ToolRunner } from '@platform/tool-sdk';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { testLogger, triggerClient, type TriggerClient } from './test-support/trigger-harness.js';
import { RelayToolGate } from './test-support/relay-tool-gate.js';

const EXECUTOR = `failover_${randomBytes(4).toString('hex')}`;
const TASKS = 6;

let databaseUrl: string;
let db: pg.Pool;
let nc: NatsConnection;
let runner: ToolRunner;
let client: TriggerClient;
const replicas = new Map<string, ServiceProcess>();
/** Every call the executor got: which fire, and which replica held its lease then. */
const calls: { fireId: string; leaseOwner: string }[] = [];
let killed: string | undefined;
/** The first test kills the replica of the first call; the second kills its victim itself. */
let killAtFireTime = true;

async function leaseOwnerOf(fireId: string): Promise<string> {
  const { rows } = await db.query<{ lease_owner: string }>('SELECT lease_owner FROM trigger.fires WHERE fire_id = $1', [
    fireId,
  ]);
  return rows[0]?.lease_owner ?? '';
}

/** TASKS one-time tasks due at `at`, on the failover executor. */
async function createTasks(at: string): Promise<string[]> {
  const created = await Promise.all(
    Array.from({ length: TASKS }, () =>
      client.rpc.createTask({
        tenantId: 'acme',
        userId: 'u',
        specJson: JSON.stringify({ trigger: { type: 'schedule', at }, executor: EXECUTOR }),
        requestId: '',
      }),
    ),
  );
  return created.map(({ task }) => task!.taskId);
}

/** Waits until every fire of these tasks succeeded. */
async function allSucceeded(taskIds: string[]): Promise<void> {
  await expect
    .poll(
      async () => {
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM trigger.fires WHERE status = 'succeeded' AND task_id = ANY($1::text[])`,
          [taskIds],
        );
        return Number(rows[0]!.n);
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(TASKS);
}

const gate = new RelayToolGate();
let relay: { address: string; stop: () => Promise<void> };

beforeAll(async () => {
  databaseUrl = await createSuiteDatabase('trigger_failover');
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'trigger-failover-test', logger: testLogger });
  const executor = defineTool({
    name: EXECUTOR,
    description: 'Kills the replica that called it the first time, then answers.',
    input: z.object({ fireId: z.string() }).passthrough(),
    sideEffect: 'external',
    handler: async ({ fireId }) => {
      const leaseOwner = await leaseOwnerOf(fireId);
      calls.push({ fireId, leaseOwner });
      if (killAtFireTime && killed === undefined) {
        // The replica that claimed the first fire dies at fire time, before it records the outcome
        // of that fire or of any other fire it had claimed.
        killed = leaseOwner;
        await replicas.get(leaseOwner)!.kill();
      }
      return { ok: true };
    },
  });
  runner = await serveRunner({
    nc,
    name: 'failover-executor',
    version: '1.0.0',
    tools: [executor],
    logger: testLogger,
  });
  // The replicas reach the executor through the orchestrator's tool gate (a relay at the wire here).
  await gate.connect();
  relay = await gate.serve();
  for (const id of ['r0', 'r1', 'r2']) {
    replicas.set(
      id,
      await startServiceProcess({
        app: 'trigger',
        mode: 'source',
        telemetry: false,
        env: {
          ...(await (await sharedServicePki()).env('trigger')),
          DATABASE_URL: databaseUrl,
          NATS_URL: sharedInfra().natsUrl,
          GRPC_PORT: '0',
          ORCHESTRATOR_ADDRESS: relay.address,
          TRIGGER_REPLICA_ID: id,
          TRIGGER_LEASE_MS: '2000',
          TRIGGER_PLAN_INTERVAL_MS: '100',
          TRIGGER_DISPATCH_INTERVAL_MS: '50',
          TRIGGER_RETRY_BASE_MS: '200',
          LOG_LEVEL: 'warn',
          OTEL_SDK_DISABLED: 'true',
        },
      }),
    );
  }
  client = await triggerClient(Number(replicas.get('r1')!.ready['grpcPort']));
}, 90_000);

afterAll(async () => {
  client?.close();
  await Promise.all([...replicas.values()].map((r) => r.stop(2_000)));
  await runner?.stop(100);
  await relay?.stop();
  await gate.close();
  await nc?.drain();
  await db?.end();
});

it('three replicas, the claimer SIGKILLed at fire time: every task fires exactly once', async () => {
  const at = new Date(Date.now() + 3_000).toISOString();
  const taskIds = await createTasks(at);
  // Wait for every fire to settle (the killed replica's fire waits out its lease, then another takes it).
  await allSucceeded(taskIds);
  const { rows: fires } = await db.query<{ task_id: string; fire_id: string; attempts: number; status: string }>(
    'SELECT task_id, fire_id, attempts, status FROM trigger.fires WHERE task_id = ANY($1::text[])',
    [taskIds],
  );
  // One fire per (task, time).
  expect(fires).toHaveLength(TASKS);
  expect(new Set(fires.map((f) => f.task_id)).size).toBe(TASKS);
  for (const fire of fires) {
    const seen = calls.filter((c) => c.fireId === fire.fire_id);
    // Executed by one live replica; a repeat happens only after the replica that held the fire was
    // killed, with the same fire id (the call id executors dedupe on), on the next attempt.
    expect(seen.filter((c) => c.leaseOwner !== killed)).toHaveLength(1);
    expect(seen.at(-1)!.leaseOwner).not.toBe(killed);
    expect(fire.attempts).toBeGreaterThanOrEqual(seen.length);
  }
  expect(calls.some((c) => c.leaseOwner === killed)).toBe(true);
  expect(fires.some((f) => f.attempts === 2)).toBe(true);
  const { rows: tasks } = await db.query<{ status: string }>(
    'SELECT status FROM trigger.tasks WHERE task_id = ANY($1::text[])',
    [taskIds],
  );
  expect(tasks.map((t) => t.status)).toEqual(Array(TASKS).fill('COMPLETED'));
});

it('the replica holding fires claimed ahead SIGKILLed before their time: the others run each once, when the leases run out', async () => {
  killAtFireTime = false;
  const live = [...replicas.keys()].filter((id) => id !== killed);
  client.close();
  client = await triggerClient(Number(replicas.get(live[0]!)!.ready['grpcPort']));
  // Due in 6 s: planned and claimed ahead (TRIGGER_CLAIM_AHEAD_MS, 3 s by default) well before.
  const at = new Date(Date.now() + 6_000).toISOString();
  const taskIds = await createTasks(at);
  const holders = async () => {
    const { rows } = await db.query<{ lease_owner: string }>(
      `SELECT DISTINCT lease_owner FROM trigger.fires WHERE task_id = ANY($1::text[]) AND status = 'running' AND started_at IS NULL`,
      [taskIds],
    );
    return rows.map((r) => r.lease_owner);
  };
  await expect.poll(async () => (await holders()).length, { timeout: 5_500, interval: 50 }).toBeGreaterThan(0);
  const victim = (await holders())[0]!;
  expect(Date.parse(at)).toBeGreaterThan(Date.now());
  await replicas.get(victim)!.kill();
  const callsBefore = calls.length;
  await allSucceeded(taskIds);
  const { rows: fires } = await db.query<{ fire_id: string; attempts: number }>(
    'SELECT fire_id, attempts FROM trigger.fires WHERE task_id = ANY($1::text[])',
    [taskIds],
  );
  expect(fires).toHaveLength(TASKS);
  const newCalls = calls.slice(callsBefore);
  for (const fire of fires) {
    // The victim died before any of its fires' time: each fire was executed once, by a live replica.
    const seen = newCalls.filter((c) => c.fireId === fire.fire_id);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.leaseOwner).not.toBe(victim);
  }
  expect(fires.some((f) => f.attempts === 2)).toBe(true);
});
