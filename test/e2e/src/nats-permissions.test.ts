import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generatePasswords, platformPrincipals, renderNatsAuthorization } from '@platform/nats-permissions';
import type { ManagedProcess, PlatformApp } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEventsOf, readSse, watchRun } from './sse.js';
import {
  api,
  bootPlatform,
  startRunnerProcess,
  waitFor,
  waitForCatalog,
  type ApprovalJson,
  type SuitePlatform,
  type TurnJson,
} from './support.js';

/**
 * The whole platform on a nats-server that authenticates every client with the generated
 * per-service users: each service logs in as itself (NATS_USER / NATS_PASSWORD) and the turn
 * path (tool call, run events over SSE, finished turn to memory, run-ended notices, tasks, a
 * triggered run that waits for approval and reports its end through TRIGGER_RUNS) works without a
 * single permission violation. A team's runner (the gated fixture) is declared like any runners
 * file entry and logs in as its own user.
 */
const GATED_RUNNER = { name: 'gated-runner', tools: ['archive_orders'] };
const principals = platformPrincipals([GATED_RUNNER]);
const passwords = generatePasswords(principals);
const USER_OF: Partial<Record<PlatformApp, string>> = {
  api: 'api',
  orchestrator: 'orchestrator',
  memory: 'memory',
  'agent-pool': 'agent-pool',
  trigger: 'trigger',
  'tool-runner': 'tool-runner',
};
const credentials = Object.fromEntries(
  Object.entries(USER_OF).map(([app, user]) => [app, { NATS_USER: user, NATS_PASSWORD: passwords[user]! }]),
);

let dir: string;
let platform: SuitePlatform;
let gatedRunner: ManagedProcess;
const lines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'e2e-nats-auth-'));
  const configFile = path.join(dir, 'auth.conf');
  writeFileSync(configFile, renderNatsAuthorization(principals, { kind: 'inline', passwords }));
  platform = await bootPlatform(
    'nats-permissions',
    { env: credentials, onLine: (app, line) => lines.push(`[${app}] ${line}`) },
    { configFile },
  );
  gatedRunner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts', {
    NATS_USER: GATED_RUNNER.name,
    NATS_PASSWORD: passwords[GATED_RUNNER.name]!,
    LOG_LEVEL: 'info',
  });
  await waitForCatalog(platform.apiUrl, ['archive_orders']);
});

afterAll(async () => {
  await gatedRunner?.stop();
  await platform?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the platform with per-service NATS users', () => {
  it('runs a turn with a tool call and streams its events', async () => {
    const turn = await api<{
      runId: string;
      status: string;
      response: string;
      toolCalls: Array<{ name: string; success: boolean }>;
    }>(platform, 'POST', '/v1/conversations/auth-1/messages', 'acme', {
      content: '[scenario:calculator] What is 12 * (3 + 4)?',
    });
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ status: 'completed' });
    expect(turn.body.response).toContain('84');
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ name: 'calculator', success: true })]);

    const events = runEventsOf(await readSse(await watchRun(platform, 'acme', turn.body.runId)));
    expect(events.map((e) => e.type)).toContain('execution_end');
  });

  it('creates a task and fires it through the orchestrator', async () => {
    const created = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', 'acme', {
      name: 'auth check',
      trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'UTC' },
      executor: 'orchestrator',
      action: { instruction: '[scenario:plain] hello' },
    });
    expect(created.status).toBe(201);
    const fired = await api(platform, 'POST', `/v1/tasks/${created.body.taskId}/run`, 'acme', {});
    expect(fired.status).toBe(202);
    const status = await waitFor(
      'the fire to settle',
      async () => {
        const fires = await api<{ fires: Array<{ status: string }> }>(
          platform,
          'GET',
          `/v1/tasks/${created.body.taskId}/fires`,
          'acme',
        );
        const latest = fires.body.fires[0]?.status;
        return latest && ['succeeded', 'failed', 'waiting_approval', 'skipped'].includes(latest) ? latest : undefined;
      },
      60_000,
    );
    expect(status).toBe('succeeded');
  });

  it('a triggered run stops for approval, and once approved its end reaches the trigger service (TRIGGER_RUNS)', async () => {
    const created = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', 'wayne', {
      name: 'archive under auth',
      trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'UTC' },
      action: { instruction: '[scenario:gated-archive] Archive the EMEA orders older than 90 days. (triggered)' },
      output: { channel: 'sse' },
    });
    expect(created.status).toBe(201);
    const taskId = created.body.taskId;
    expect((await api(platform, 'POST', `/v1/tasks/${taskId}/run`, 'wayne', {})).status).toBe(202);
    const waiting = await waitFor(
      'the fire to wait for approval',
      async () => {
        const { body } = await api<{ fires: Array<{ fireId: string; status: string }> }>(
          platform,
          'GET',
          `/v1/tasks/${taskId}/fires`,
          'wayne',
        );
        return body.fires[0] && body.fires[0].status !== 'pending' && body.fires[0].status !== 'running'
          ? body.fires[0]
          : undefined;
      },
      60_000,
    );
    expect(waiting.status).toBe('waiting_approval');
    const [approval] = (await api<{ approvals: ApprovalJson[] }>(platform, 'GET', '/v1/approvals', 'wayne')).body
      .approvals;
    expect(approval).toMatchObject({ agentName: 'archive_orders', source: { kind: 'trigger', taskId } });

    const approved = await api<TurnJson>(platform, 'POST', `/v1/approvals/${approval!.approvalId}`, 'wayne', {
      decision: 'approve',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'completed' });
    // The fire settles only when the trigger service consumed the run's end from TRIGGER_RUNS.
    const settled = await waitFor(
      'the fire to get the approved result',
      async () => {
        const { body } = await api<{
          fires: Array<{ fireId: string; status: string; result: { response: string } | null }>;
        }>(platform, 'GET', `/v1/tasks/${taskId}/fires`, 'wayne');
        return body.fires[0]?.status === 'succeeded' ? body.fires[0] : undefined;
      },
      60_000,
    );
    expect(settled).toMatchObject({
      fireId: waiting.fireId,
      result: { response: expect.stringContaining('Archive result') },
    });
  });

  // Every run ends with a run-ended notice (orchestrator publish, memory queue subscription): a
  // refused one would show here as a violation in the orchestrator's or memory's log.
  it('no service or runner was refused anything', () => {
    expect(lines.filter((line) => /Permissions Violation|Authorization Violation/i.test(line))).toEqual([]);
    expect(gatedRunner.recentOutput).not.toMatch(/Permissions Violation|Authorization Violation/i);
    expect(gatedRunner.recentOutput).toContain('"msg":"nats connected"');
  });
});
