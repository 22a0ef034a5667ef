// The credential leak test: a turn whose tool reads (and refreshes) a credential through its grant,
// with every trace collected, every log line captured, the run's events, journal and history read
// back, and what the model received inspected. The secrets must appear nowhere but where they
// belong (encrypted in the credential service's table).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ManagedProcess, startOtlpCollector, workspaceRoot, type OtlpCollector } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf } from './sse.js';
import { api, bootPlatform, waitFor, waitForCatalog, type SuitePlatform, type TurnJson } from './support.js';

const TENANT = 'leaky-tenant';
const SECRET = `ya29.LEAKCHECK-${randomBytes(12).toString('hex')}`;
const REFRESHED = `ya29.REFRESHED-${randomBytes(12).toString('hex')}`;
const REFRESH_TOKEN = `1//RT-${randomBytes(12).toString('hex')}`;

let collector: OtlpCollector;
let platform: SuitePlatform;
let runner: ManagedProcess;
let databaseUrl: string;
const logLines: string[] = [];

beforeAll(async () => {
  collector = await startOtlpCollector();
  databaseUrl = await createSuiteDatabase('credential_leak');
  const telemetry = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
  platform = await bootPlatform('credential_leak', {
    databaseUrl,
    // Debug logs: the most a service ever writes.
    commonEnv: { ...telemetry, LOG_LEVEL: 'debug' },
    onLine: (app, line) => logLines.push(`[${app}] ${line}`),
  });
  runner = ManagedProcess.start(
    'mail-runner',
    process.execPath,
    [
      '--conditions=@platform/source',
      '--import',
      'tsx',
      '--import',
      '@platform/telemetry/register',
      path.join('test', 'e2e', 'src', 'fixtures', 'mail-runner.ts'),
    ],
    {
      cwd: workspaceRoot(),
      env: {
        ...process.env,
        ...telemetry,
        OTEL_SERVICE_NAME: 'mail-runner',
        NATS_URL: platform.natsUrl,
        REDIS_URL: platform.redisUrl,
        CREDENTIAL_ADDRESS: `127.0.0.1:${platform.ports.credential}`,
        ...(await platform.pki.env('runner/mail')),
        REFRESHED_TOKEN: REFRESHED,
        LOG_LEVEL: 'debug',
      },
    },
  );
  runner.child.stdout?.on('data', (chunk: Buffer) => logLines.push(`[mail-runner] ${chunk.toString('utf8')}`));
  runner.child.stderr?.on('data', (chunk: Buffer) => logLines.push(`[mail-runner] ${chunk.toString('utf8')}`));
  await runner.waitForOutput((out) => out.includes('"msg":"ready"'), 30_000);
  await waitForCatalog(platform.apiUrl, ['check_inbox', 'send_mail']);
});
afterAll(async () => {
  await runner?.stop();
  await platform?.stop();
  await collector?.stop();
});

/** Every place a secret must not be, as text. */
function expectNowhere(where: string, text: string): void {
  for (const secret of [SECRET, REFRESHED, REFRESH_TOKEN]) {
    if (text.includes(secret))
      throw new Error(
        `a credential secret leaked into ${where}: ...${text.slice(Math.max(0, text.indexOf(secret) - 200), text.indexOf(secret) + 60)}...`,
      );
  }
}

async function tablesAsText(schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1`,
      [schema],
    );
    const dumps: string[] = [];
    for (const { table_name } of tables) {
      const { rows } = await client.query(`SELECT * FROM "${schema}"."${table_name}"`);
      dumps.push(`${table_name}: ${JSON.stringify(rows)}`);
    }
    return dumps.join('\n');
  } finally {
    await client.end();
  }
}

describe('a turn whose tool uses a credential', () => {
  it('uses the secret and leaks it nowhere: traces, logs, run events, journal, history, model requests', async () => {
    const put = await api(platform, 'PUT', '/v1/credentials/mailhost/primary', TENANT, {
      secret: { access_token: SECRET, refresh_token: REFRESH_TOKEN },
    });
    expect(put.status).toBe(200);

    const stream = await postMessageStream(platform, TENANT, 'inbox-1', {
      content: '[scenario:credential-inbox] How many unread emails do I have?',
    });
    const events = runEventsOf(await readSse(stream));
    const end = events.find((e) => e.type === 'execution_end');
    expect(end, JSON.stringify(events.map((e) => e.type))).toBeDefined();
    const runId = end!.runId;
    // The tool really read the secret (its length) and saved the refresh: the grant worked end to end.
    const result = JSON.stringify(events.find((e) => e.type === 'tool_result')?.data);
    expect(result).toMatch(new RegExp(`tokenChars\\\\?":${SECRET.length}`));
    expect(result).toMatch(/refreshedTo\\?":2/);

    const audit = await api<{ events: Array<{ action: string; outcome: string; actor: Record<string, unknown> }> }>(
      platform,
      'GET',
      '/v1/credentials/audit',
      TENANT,
    );
    expect(
      audit.body.events
        .slice(0, 2)
        .map((e) => [e.action, e.outcome, e.actor['kind'], e.actor['tool'], e.actor['runId']]),
    ).toEqual([
      ['save', 'ok', 'tool', 'check_inbox', runId],
      ['get', 'ok', 'tool', 'check_inbox', runId],
    ]);

    // Traces: wait until the runner's and the credential service's spans of this turn arrived.
    const spans = await collector.waitForSpans(
      (all) =>
        all.some((s) => s.serviceName === 'mail-runner') &&
        all.filter((s) => s.serviceName === 'credential' && s.kind === 'SERVER').length >= 3,
      20_000,
    );
    expect(spans.some((s) => s.serviceName === 'credential')).toBe(true);
    expectNowhere('traces', JSON.stringify(collector.spans()));
    expectNowhere('metrics', JSON.stringify(collector.metricPoints()));

    expectNowhere('run events', JSON.stringify(events));
    const history = await api(platform, 'GET', '/v1/conversations/inbox-1/messages', TENANT);
    expect(history.status).toBe(200);
    expectNowhere('conversation history', JSON.stringify(history.body));
    const run = await api(platform, 'GET', `/v1/runs/${runId}`, TENANT);
    expectNowhere('the run record', JSON.stringify(run.body));
    expectNowhere('the orchestrator journal', await tablesAsText('orchestrator'));
    expectNowhere('the memory tables', await tablesAsText('memory'));
    expectNowhere('the agent pool tables', await tablesAsText('agent_pool'));
    const credentialTables = await tablesAsText('credential');
    expectNowhere('the credential tables (stored encrypted only)', credentialTables);

    const modelRequests = await fetch(`${platform.llmSimUrl}/_sim/requests`).then((r) => r.text());
    expect(modelRequests).toContain('check_inbox');
    expectNowhere('what the model received', modelRequests);

    // Logs last: give every process a moment to flush what it wrote about this turn.
    await waitFor('the runner log line', async () =>
      logLines.some((l) => l.includes('read the mailhost token')) ? true : undefined,
    );
    expect(logLines.some((l) => l.startsWith('[credential]'))).toBe(true);
    expectNowhere('service logs', logLines.join('\n'));
  });
});

describe('an approval-gated tool that uses a credential', () => {
  const tenant = 'gated-mail-tenant';
  const token = `ya29.GATED-${randomBytes(12).toString('hex')}`;
  type AuditJson = { events: Array<{ action: string; outcome: string; actor: Record<string, unknown> }> };
  const auditOf = async () => (await api<AuditJson>(platform, 'GET', '/v1/credentials/audit', tenant)).body.events;
  const reads = async () => (await auditOf()).filter((e) => e.action === 'get');

  it('reads nothing while it waits (even across an orchestrator restart), then reads the credential through a grant issued when the user approves', async () => {
    expect(
      (await api(platform, 'PUT', '/v1/credentials/mailhost/primary', tenant, { secret: { access_token: token } }))
        .status,
    ).toBe(200);

    const asked = await api<TurnJson>(platform, 'POST', '/v1/conversations/gated-mail-1/messages', tenant, {
      content: '[scenario:gated-mail] Send the weekly report to ops.',
    });
    expect(asked.body).toMatchObject({
      status: 'waiting',
      pending: [{ agentName: 'send_mail', waitingFor: 'approval' }],
    });
    expect(await reads()).toEqual([]);

    // Nothing about the call's grant is kept in a process: the grant is signed when the decision runs.
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    await waitForCatalog(platform.apiUrl, ['send_mail']);
    expect(await reads()).toEqual([]);

    const yes = await api<TurnJson>(platform, 'POST', '/v1/conversations/gated-mail-1/messages', tenant, {
      content: 'yes',
    });
    expect(yes.body.status).toBe('completed');
    const result = JSON.parse(yes.body.response.replace(/^Mail result: /, '')) as Record<string, unknown>;
    expect(result).toEqual({ sent: true, to: 'ops@example.com', tokenChars: token.length });
    expect(yes.body.toolCalls.find((c) => c.name === 'send_mail')).toMatchObject({ status: 'success' });

    const [read] = await reads();
    expect(read).toMatchObject({ outcome: 'ok', actor: { kind: 'tool', tool: 'send_mail' } });
    expect(yes.body.response).not.toContain(token);
  });
});
