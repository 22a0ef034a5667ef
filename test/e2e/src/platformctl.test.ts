import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { memoryIngestSubject } from '@platform/contracts';
import { freePort, workspaceRoot } from '@platform/testing';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, JWT_SECRET, tokenFor, waitFor, type SuitePlatform } from './support.js';

/**
 * The operators' CLI, built as shipped (tools/platformctl/dist/main.js), against the running
 * platform: every command, the operator-only routes, and the orchestrator's /metrics as
 * Prometheus scrapes it.
 */
const run = promisify(execFile);
const CLI = path.join(workspaceRoot(), 'tools/platformctl/dist/main.js');
let platform: SuitePlatform;
let operatorToken: string;
let metricsPort: number;
let runId: string;
let taskId: string;

async function operator(): Promise<string> {
  return new SignJWT({ tenant: 'ops', roles: ['platform-operator'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('oncall@ops')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

async function platformctl(
  args: string[],
  token = operatorToken,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, PLATFORM_API_URL: platform.apiUrl, PLATFORM_TOKEN: token },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  metricsPort = await freePort();
  platform = await bootPlatform('platformctl', {
    env: { orchestrator: { OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort) } },
  });
  operatorToken = await operator();
  const turn = await api<{ runId: string; status: string }>(
    platform,
    'POST',
    '/v1/conversations/ops-1/messages',
    'acme',
    { content: '[scenario:calculator] What is 12 * (3 + 4)?' },
  );
  expect(turn.body.status).toBe('completed');
  runId = turn.body.runId;
  const task = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', 'acme', {
    name: 'nightly report',
    trigger: { type: 'schedule', cron: '0 3 * * *', timeZone: 'UTC' },
    executor: 'orchestrator',
    action: { instruction: '[scenario:plain] report' },
  });
  taskId = task.body.taskId;
  await api(platform, 'POST', `/v1/tasks/${taskId}/run`, 'acme', {});
  await waitFor(
    'the manual fire to succeed',
    async () => {
      const fires = await api<{ fires: Array<{ status: string }> }>(
        platform,
        'GET',
        `/v1/tasks/${taskId}/fires`,
        'acme',
      );
      return fires.body.fires[0]?.status === 'succeeded' ? true : undefined;
    },
    60_000,
  );
});

afterAll(async () => platform?.stop());

describe('platformctl against the running platform', () => {
  it('shows a run: status, stop reason, trace id and transcript', async () => {
    const shown = await platformctl(['runs', 'show', runId, '--tenant', 'acme']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`run: +${runId}`));
    expect(shown.stdout).toMatch(/status: +completed/);
    expect(shown.stdout).toMatch(/stop reason: +final_answer/);
    expect(shown.stdout).toMatch(/trace id: +[0-9a-f]{32}/);
    expect(shown.stdout).toContain('calculator -> success');
    const json = JSON.parse((await platformctl(['runs', 'show', runId, '--tenant', 'acme', '--json'])).stdout) as {
      traceId: string;
      transcript: unknown[];
    };
    expect(json.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(json.transcript.length).toBe(2);
  });

  it("lists a conversation's runs", async () => {
    const listed = await platformctl(['runs', 'list', '--conversation', 'ops-1', '--tenant', 'acme']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(
      /^RUN +CONVERSATION +STATUS +STOP REASON +SOURCE +PROTOCOL +CREATED +TOOL CALLS +TRACE ID/,
    );
    expect(listed.stdout).toMatch(
      new RegExp(`${runId} +ops-1 +completed +final_answer +user +rest +\\S+ +1 +[0-9a-f]{32}`),
    );
    expect(listed.stdout.trim().split('\n')).toHaveLength(2);
  });

  it("lists a tenant's runs without a conversation: filters, pages, and nothing of other tenants", async () => {
    const all = await platformctl(['runs', 'list', '--tenant', 'acme']);
    expect(all.code).toBe(0);
    const rows = all.stdout.trim().split('\n').slice(1);
    // The task's manual fire ran after the user's turn: newest first.
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^run_\S+ +\S+ +completed +final_answer +trigger /);
    expect(rows[1]).toMatch(new RegExp(`^${runId} +ops-1 +completed +final_answer +user `));
    const triggerRunId = rows[0]!.split(/ +/)[0]!;

    expect((await platformctl(['runs', 'list', '--tenant', 'acme', '--source', 'trigger'])).stdout).not.toContain(
      runId,
    );
    // The trigger's fire came in by no protocol; the user's message by REST.
    expect(rows[0]).toMatch(/ trigger +- /);
    const byProtocol = await platformctl(['runs', 'list', '--tenant', 'acme', '--protocol', 'rest']);
    expect(byProtocol.stdout).toContain(runId);
    expect(byProtocol.stdout).not.toContain(triggerRunId);
    const byTool = await platformctl([
      'runs',
      'list',
      '--tenant',
      'acme',
      '--tool',
      'calculator',
      '--status',
      'completed,failed',
      '--since',
      '2020-01-01T00:00:00Z',
    ]);
    expect(
      byTool.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((row) => row.split(/ +/)[0]),
    ).toEqual([runId]);
    expect(
      (await platformctl(['runs', 'list', '--tenant', 'acme', '--status', 'failed'])).stdout.trim().split('\n'),
    ).toHaveLength(1);

    // One run a page: the first page says how to get the next, which has the other run.
    const first = await platformctl(['runs', 'list', '--tenant', 'acme', '--limit', '1']);
    const token = /more: --page-token (\S+)/.exec(first.stdout)?.[1];
    expect(first.stdout).toContain(triggerRunId);
    expect(token).toBeDefined();
    const second = await platformctl(['runs', 'list', '--tenant', 'acme', '--limit', '1', '--page-token', token!]);
    expect(second.stdout).toContain(runId);
    expect(second.stdout).not.toContain('more:');
    const json = JSON.parse(
      (await platformctl(['runs', 'list', '--tenant', 'acme', '--limit', '1', '--all', '--json'])).stdout,
    ) as { runs: Array<{ runId: string }>; nextPageToken: string | null };
    expect(json).toEqual({
      runs: [expect.objectContaining({ runId: triggerRunId }), expect.objectContaining({ runId })],
      nextPageToken: null,
    });

    // Another tenant's listing is empty, and acme's page token is refused there.
    expect((await platformctl(['runs', 'list', '--tenant', 'globex'])).stdout.trim().split('\n')).toHaveLength(1);
    expect(
      await platformctl(['runs', 'list', '--tenant', 'globex', '--limit', '1', '--page-token', token!]),
    ).toMatchObject({ code: 1, stderr: expect.stringContaining('INVALID_PAGE_TOKEN (HTTP 400)') });
    expect(await platformctl(['runs', 'list', '--tenant', 'acme', '--status', 'done'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('INVALID_QUERY (HTTP 400): status:'),
    });
    // A tenant's own token lists its own runs, no operator role needed.
    expect((await platformctl(['runs', 'list'], await tokenFor('acme'))).stdout).toContain(runId);
  });

  it('lists the tool catalog with its runner instances', async () => {
    const tools = await platformctl(['tools', '--tenant', 'acme']);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/calculator +tool +builtin-tools +\S+ +1 /);
    expect(tools.stdout).toMatch(/memory_search +tool +memory-tools/);
  });

  it('lists tasks and their fires', async () => {
    const tasks = await platformctl(['tasks', '--tenant', 'acme']);
    expect(tasks.stdout).toMatch(new RegExp(`${taskId} +nightly report +ACTIVE +schedule 0 3 \\* \\* \\*`));
    const shown = await platformctl(['tasks', 'show', taskId, '--tenant', 'acme']);
    expect(shown.stdout).toMatch(/last outcome: +succeeded/);
    const fires = await platformctl(['tasks', 'fires', taskId, '--tenant', 'acme']);
    expect(fires.code).toBe(0);
    expect(fires.stdout).toMatch(/fire_\S+ +manual +\S+ +succeeded +1 +run_/);
  });

  it('lists pending approvals (none here)', async () => {
    const approvals = await platformctl(['approvals', '--tenant', 'acme']);
    expect(approvals).toMatchObject({ code: 0, stdout: expect.stringMatching(/^APPROVAL +AGENT +STATUS +EXPIRES/) });
    expect(approvals.stdout.trim().split('\n')).toHaveLength(1);
  });

  it("lists memory's dead letters, of all tenants or one", async () => {
    const nc = await connect({ servers: platform.natsUrl });
    try {
      nc.publish(memoryIngestSubject('acme'), '{"not": "a finished turn"');
      await nc.flush();
    } finally {
      await nc.close();
    }
    const listed = await waitFor(
      'the malformed turn to be dead-lettered',
      async () => {
        const out = await platformctl(['memory', 'dead-letters']);
        return out.stdout.includes('malformed_message') ? out : undefined;
      },
      60_000,
    );
    expect(listed.code).toBe(0);
    // Too malformed to name its tenant or run: listed under none.
    expect(listed.stdout).toMatch(/^\d+ +- +- +malformed_message +1 +\S+ +not a TurnFinished message/m);
    expect(listed.stdout).toContain('1 shown, 1 in the dead-letter stream');
    expect((await platformctl(['memory', 'dead-letters', '--tenant', 'acme'])).stdout).toContain(
      '0 shown, 1 in the dead-letter stream',
    );
    const json = JSON.parse((await platformctl(['memory', 'dead-letters', '--json'])).stdout) as {
      deadLetters: Array<{ reason: string; originalSubject: string }>;
      nextAfterSeq: number | null;
    };
    expect(json.deadLetters).toEqual([
      expect.objectContaining({ reason: 'malformed_message', originalSubject: memoryIngestSubject('acme') }),
    ]);
    expect(json.nextAfterSeq).toBeNull();
  });

  it('shows the credential keys and rewrap progress', async () => {
    await api(platform, 'PUT', '/v1/credentials/google/primary', 'acme', { secret: { access_token: 'ya29.secret' } });
    const keys = await platformctl(['credentials', 'keys']);
    expect(keys.code).toBe(0);
    expect(keys.stdout).toMatch(/k1 +yes +yes +1/);
    expect(keys.stdout).toMatch(/rewrap: +done/);
    expect(keys.stdout).toMatch(/on active key: +1 of 1 \(100%\)/);
    expect(keys.stdout).not.toContain('ya29');
  });

  it('refuses a token without the operator role: admin routes and reading another tenant', async () => {
    const user = await tokenFor('acme');
    expect(await platformctl(['credentials', 'keys'], user)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('FORBIDDEN (HTTP 403)'),
    });
    expect(await platformctl(['memory', 'dead-letters'], user)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('FORBIDDEN'),
    });
    expect(await platformctl(['runs', 'show', runId, '--tenant', 'acme'], await tokenFor('globex'))).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('FORBIDDEN'),
    });
    // An operator reads but never acts as a tenant.
    const post = await fetch(`${platform.apiUrl}/v1/conversations/ops-2/messages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${operatorToken}`,
        'platform-tenant': 'acme',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ content: 'hello' }),
    });
    expect(post.status).toBe(403);
    // Without the header an operator is its own tenant: acme's run is not found.
    expect(await platformctl(['runs', 'show', runId])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('RUN_NOT_FOUND'),
    });
  });

  it("serves the orchestrator's metrics for Prometheus, GenAI names included", async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toMatch(/^gen_ai_client_operation_duration_count\{[^}]*gen_ai_request_model="sim-1"/m);
    expect(text).toMatch(/^gen_ai_client_token_usage_count\{[^}]*gen_ai_token_type="input"/m);
    expect(text).toMatch(
      /^platform_tool_duration_count\{[^}]*gen_ai_tool_name="calculator"[^}]*platform_tool_status="success"/m,
    );
    expect(text).toMatch(/^platform_turn_duration_count\{[^}]*platform_run_status="completed"/m);
    expect(text).toMatch(/^platform_tenant_token_usage_total\{[^}]*platform_tenant="acme"/m);
  });
});
