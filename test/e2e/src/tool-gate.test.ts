import { createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  bootPlatform,
  startRunnerProcess,
  waitFor,
  waitForCatalog,
  writeProfilesFile,
  type SuitePlatform,
} from './support.js';

// The one tool gate (apps/orchestrator/src/tool-gate/) as trigger tasks meet it, every service a
// process: a condition poll and a custom executor's fire reach a tool only through the
// orchestrator (CallTool / CallToolBatch), never straight over NATS, so an approval-gated tool,
// a tool outside the task's profile and a tool that is not a declared executor never run from a
// task, whether the task is refused at creation or was stored before these checks existed.
interface ErrorBody {
  error: { code: string; message: string; details?: { reason?: string } };
}
interface FireJson {
  fireId: string;
  kind: string;
  status: string;
  error: { code: string; message: string } | null;
  result: unknown;
}

let platform: SuitePlatform;
let databaseUrl: string;
let gatedRunner: ManagedProcess;
let executorRunner: ManagedProcess;
let profiles: { file: string; remove: () => Promise<void> };
let redis: Redis;

beforeAll(async () => {
  profiles = await writeProfilesFile('tool_gate', {
    defaultProfile: 'default',
    profiles: [
      { name: 'default', systemPrompt: 'You help.', tools: ['*'] },
      { name: 'arithmetic', systemPrompt: 'You add numbers.', tools: ['calculator'] },
    ],
  });
  databaseUrl = await createSuiteDatabase('tool_gate');
  // Conditions poll every second here, below the default tier's minimum schedule interval (60 s).
  const tiers = JSON.stringify({ default: { minScheduleIntervalSeconds: 1 } });
  platform = await bootPlatform('tool_gate', {
    databaseUrl,
    readyTimeoutMs: 90_000,
    env: { orchestrator: { AGENT_PROFILES_FILE: profiles.file }, trigger: { TENANT_TIERS: tiers } },
  });
  gatedRunner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  executorRunner = await startRunnerProcess(platform, 'executor-runner', 'test/e2e/src/fixtures/executor-runner.ts');
  await waitForCatalog(platform.apiUrl, ['archive_orders', 'digest_executor']);
  redis = createRedis({
    url: platform.redisUrl,
    name: 'tool-gate-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
});
afterAll(async () => {
  redis?.disconnect();
  await executorRunner?.stop();
  await gatedRunner?.stop();
  await platform?.stop();
  await profiles?.remove();
});

const ARCHIVE = { region: 'eu', olderThanDays: 1 };
const archiveRuns = async () => (await redis.keys('archive:*')).length;
const digestOf = async (fireId: string) =>
  (await redis.lrange(`digest:${fireId}`, 0, -1)).map((r) => JSON.parse(r) as { tenantId: string; kind: string });
const firesOf = async (tenant: string, taskId: string) =>
  (await api<{ fires: FireJson[] }>(platform, 'GET', `/v1/tasks/${taskId}/fires`, tenant)).body.fires;

/** Rewrites a stored task's spec in the trigger's own table, as a task stored before these checks existed would be. */
async function rewriteStoredTask(taskId: string, patch: string, executor?: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const updated = await client.query(
      `UPDATE trigger.tasks SET spec = spec || $2::jsonb, executor = coalesce($3, executor) WHERE task_id = $1`,
      [taskId, patch, executor ?? null],
    );
    expect(updated.rowCount).toBe(1);
  } finally {
    await client.end();
  }
}

describe('trigger tasks at the tool gate', () => {
  it("refuses at creation a condition on an approval-gated tool, or on a tool outside the task's profile: 400 CONDITION_TOOL_NOT_ALLOWED", async () => {
    const gated = await api<ErrorBody>(platform, 'POST', '/v1/tasks', 'acme', {
      name: 'archive every second',
      trigger: {
        type: 'condition',
        tool: 'archive_orders',
        arguments: ARCHIVE,
        intervalSeconds: 1,
        condition: 'result.archived > 0',
      },
      action: { instruction: 'Tell me.' },
    });
    expect(gated.status).toBe(400);
    expect(gated.body.error).toMatchObject({
      code: 'CONDITION_TOOL_NOT_ALLOWED',
      details: { reason: 'APPROVAL_REQUIRED' },
    });
    expect(gated.body.error.message).toMatch(/^trigger\.tool: /);

    const outside = await api<ErrorBody>(platform, 'POST', '/v1/tasks', 'acme', {
      name: 'clock watch',
      trigger: { type: 'condition', tool: 'current_time', intervalSeconds: 60, condition: 'result != ""' },
      action: { instruction: 'Tell me.', profile: 'arithmetic' },
    });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toMatchObject({
      code: 'CONDITION_TOOL_NOT_ALLOWED',
      details: { reason: 'TOOL_NOT_ALLOWED' },
    });
    expect(await archiveRuns()).toBe(0);
  });

  it('refuses at creation an executor its runner did not declare one: 400 EXECUTOR_NOT_ALLOWED', async () => {
    for (const executor of ['archive_orders', 'calculator']) {
      const refused = await api<ErrorBody>(platform, 'POST', '/v1/tasks', 'acme', {
        name: `run ${executor}`,
        trigger: { type: 'schedule', cron: '0 8 * * *' },
        executor,
        action: { config: ARCHIVE },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'EXECUTOR_NOT_ALLOWED',
        details: { reason: 'NOT_AN_EXECUTOR' },
      });
    }
  });

  it('never runs an approval-gated tool from a condition task stored before the check: every poll is refused by the gate', async () => {
    const created = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', 'acme', {
      name: 'sum watch',
      trigger: {
        type: 'condition',
        tool: 'calculator',
        arguments: { expression: '1 + 1' },
        intervalSeconds: 1,
        condition: 'result.result == 3',
      },
      action: { instruction: 'Tell me.' },
    });
    expect(created.status).toBe(201);
    await rewriteStoredTask(
      created.body.taskId,
      JSON.stringify({
        trigger: {
          type: 'condition',
          tool: 'archive_orders',
          arguments: ARCHIVE,
          intervalSeconds: 1,
          condition: 'result.archived > 0',
          cooldownSeconds: 0,
        },
      }),
    );
    // Polled every second for a few seconds: each poll is refused by the gate, none reaches the runner.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await archiveRuns()).toBe(0);
    expect(await firesOf('acme', created.body.taskId)).toEqual([]);
  });

  it('never runs a tool that is not a declared executor from a task stored before the check: the fire fails NOT_AN_EXECUTOR', async () => {
    const created = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', 'acme', {
      name: 'digest',
      trigger: { type: 'schedule', cron: '0 8 * * *' },
      executor: 'digest_executor',
      action: { config: ARCHIVE },
    });
    expect(created.status).toBe(201);
    await rewriteStoredTask(created.body.taskId, JSON.stringify({ executor: 'archive_orders' }), 'archive_orders');
    expect((await api(platform, 'POST', `/v1/tasks/${created.body.taskId}/run`, 'acme', {})).status).toBe(202);
    const fire = await waitFor(
      'the fire to end',
      async () => (await firesOf('acme', created.body.taskId)).find((f) => f.status === 'failed'),
      30_000,
    );
    expect(fire.error?.code).toBe('NOT_AN_EXECUTOR');
    expect(await archiveRuns()).toBe(0);
  });

  it('runs a declared executor for coinciding fires of two tenants, each once under its own tenant, and a read-only condition fires it (the profile allowlist applying to both)', async () => {
    const tenants = ['acme', 'globex', 'acme', 'globex'];
    const tasks: string[] = [];
    for (const [i, tenant] of tenants.entries()) {
      const created = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', tenant, {
        name: `digest ${i}`,
        trigger: { type: 'schedule', cron: '0 8 * * *' },
        executor: 'digest_executor',
        action: { config: { items: Array.from({ length: i }, String) } },
      });
      expect(created.status).toBe(201);
      tasks.push(created.body.taskId);
    }
    await Promise.all(tasks.map((taskId, i) => api(platform, 'POST', `/v1/tasks/${taskId}/run`, tenants[i]!, {})));
    for (const [i, taskId] of tasks.entries()) {
      const fire = await waitFor(
        'the fire to succeed',
        async () => (await firesOf(tenants[i]!, taskId)).find((f) => f.status === 'succeeded'),
        30_000,
      );
      expect(fire.result).toEqual({ counted: i });
      expect(await digestOf(fire.fireId)).toEqual([{ tenantId: tenants[i], kind: 'manual' }]);
    }

    const spec = {
      name: 'sum is four',
      trigger: {
        type: 'condition',
        tool: 'calculator',
        arguments: { expression: '2 + 2' },
        intervalSeconds: 1,
        condition: 'result.result == 4',
      },
      executor: 'digest_executor',
    };
    // The task's profile allowlist applies to its executor too: 'arithmetic' gives only the calculator.
    const narrow = await api<ErrorBody>(platform, 'POST', '/v1/tasks', 'acme', {
      ...spec,
      action: { config: { items: ['x'] }, profile: 'arithmetic' },
    });
    expect(narrow.status).toBe(400);
    expect(narrow.body.error).toMatchObject({ code: 'EXECUTOR_NOT_ALLOWED', details: { reason: 'TOOL_NOT_ALLOWED' } });
    const watch = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', 'acme', {
      ...spec,
      action: { config: { items: ['x'] } },
    });
    expect(watch.status).toBe(201);
    const fired = await waitFor(
      'the condition to fire',
      async () => (await firesOf('acme', watch.body.taskId)).find((f) => f.status === 'succeeded'),
      30_000,
    );
    expect(fired).toMatchObject({ kind: 'condition', result: { counted: 1 } });
  });
});
