import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generatePasswords, platformPrincipals, renderNatsAuthorization } from '@platform/nats-permissions';
import type { PlatformApp } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEventsOf, readSse, watchRun } from './sse.js';
import { api, bootPlatform, waitFor, type SuitePlatform } from './support.js';

/**
 * The whole platform on a nats-server that authenticates every client with the generated
 * per-service users: each service logs in as itself (NATS_USER / NATS_PASSWORD) and the turn
 * path (tool call, run events over SSE, finished turn to memory, tasks) works without a single
 * permission violation.
 */
const principals = platformPrincipals();
const passwords = generatePasswords(principals);
const USER_OF: Partial<Record<PlatformApp, string>> = { api: 'api', orchestrator: 'orchestrator', memory: 'memory', 'agent-pool': 'agent-pool', trigger: 'trigger', 'tool-runner': 'tool-runner' };
const credentials = Object.fromEntries(Object.entries(USER_OF).map(([app, user]) => [app, { NATS_USER: user, NATS_PASSWORD: passwords[user]! }]));

let dir: string;
let platform: SuitePlatform;
const lines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'e2e-nats-auth-'));
  const configFile = path.join(dir, 'auth.conf');
  writeFileSync(configFile, renderNatsAuthorization(principals, { kind: 'inline', passwords }));
  platform = await bootPlatform('nats-permissions', { env: credentials, onLine: (app, line) => lines.push(`[${app}] ${line}`) }, { configFile });
});

afterAll(async () => {
  await platform?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the platform with per-service NATS users', () => {
  it('runs a turn with a tool call and streams its events', async () => {
    const turn = await api<{ runId: string; status: string; response: string; toolCalls: Array<{ name: string; success: boolean }> }>(platform, 'POST', '/v1/conversations/auth-1/messages', 'acme', {
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
    const status = await waitFor('the fire to settle', async () => {
      const fires = await api<{ fires: Array<{ status: string }> }>(platform, 'GET', `/v1/tasks/${created.body.taskId}/fires`, 'acme');
      const latest = fires.body.fires[0]?.status;
      return latest && ['succeeded', 'failed', 'waiting_approval', 'skipped'].includes(latest) ? latest : undefined;
    }, 60_000);
    expect(status).toBe('succeeded');
  });

  it('no service was refused anything', () => {
    expect(lines.filter((line) => /Permissions Violation|Authorization Violation/i.test(line))).toEqual([]);
  });
});
