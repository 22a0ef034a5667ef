import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import type { ResolvedAddress } from '@platform/egress';
import { createLogger } from '@platform/service-kit';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { startTriggerServer, type TriggerServer } from './server.js';
import { RelayToolGate } from './test-support/relay-tool-gate.js';
import { rejection, testTriggerConfig, triggerClient, type TriggerClient } from './test-support/trigger-harness.js';

/**
 * Webhook URLs against the egress guard, through a real trigger replica: refused at creation when
 * they reach inside (every spelling of loopback, the platform's own ports, metadata, userinfo), and
 * not connected to at delivery when they resolve inside by then, with no secret in any log line.
 */
const PUBLIC: ResolvedAddress = { address: '93.184.215.14', family: 4 };
const LOOPBACK: ResolvedAddress = { address: '127.0.0.1', family: 4 };

let server: TriggerServer;
let client: TriggerClient;
let db: pg.Pool;
const clock = new ManualClock(Date.parse('2026-06-01T12:00:00Z'));
/** What the test's resolver answers per host name, changed by the tests (a DNS rebind). */
const dns = new Map<string, ResolvedAddress[]>();
const lookups: string[] = [];
const logLines: string[] = [];
/** A local receiver that records every TCP connection made to it. */
let receiver: Server;
let receiverPort: number;
let connections = 0;
// The tasks' executor is checked through the orchestrator's tool gate at creation: a relay stands in for it.
const gate = new RelayToolGate();
let relay: { address: string; stop: () => Promise<void> } | undefined;

beforeAll(async () => {
  const databaseUrl = await createSuiteDatabase('trigger');
  const capture = new PassThrough();
  capture.on('data', (chunk: Buffer) => logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const logger = createLogger({ service: 'trigger-egress-test', level: 'trace', destination: capture });
  relay = await gate.serve();
  server = await startTriggerServer(
    await testTriggerConfig(databaseUrl, {
      ORCHESTRATOR_ADDRESS: relay.address,
      TRIGGER_WEBHOOK_ALLOW_HTTP: 'true',
      TRIGGER_WEBHOOK_MAX_ATTEMPTS: '3',
    }),
    logger,
    {
      clock,
      startEngine: false,
      executor: { execute: async () => ({ status: 'succeeded', result: { ok: true } }) },
      egressResolver: async (hostname) => {
        lookups.push(hostname);
        const answer = dns.get(hostname);
        if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return answer;
      },
    },
  );
  client = await triggerClient(server.port);
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  receiver = createServer((_request, response) => response.end());
  receiver.on('connection', () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await relay?.stop();
  await db?.end();
  await new Promise((resolve) => receiver?.close(resolve));
});

const spec = (url: string) =>
  JSON.stringify({
    name: 'hook',
    trigger: { type: 'schedule', cron: '0 0 1 1 *' },
    executor: 'noop_exec',
    output: { channel: 'webhook', url },
  });
const create = (url: string) =>
  client.rpc.createTask({ tenantId: 'acme', userId: 'alice', requestId: '', specJson: spec(url) });

/** Fires the task now and makes one delivery round; resolves with the stored outcome of its notification. */
async function fireAndDeliver(taskId: string): Promise<{ status: string; last_error: string; attempts: number }> {
  await client.rpc.runTaskNow({ tenantId: 'acme', taskId, requestId: '' });
  await server.engine.planner.planDue();
  await server.engine.dispatcher.dispatchDue();
  await server.engine.dispatcher.idle();
  await server.webhooks.deliverDue();
  const { rows } = await db.query<{ status: string; last_error: string; attempts: number }>(
    'SELECT status, last_error, attempts FROM trigger.notifications WHERE task_id = $1',
    [taskId],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

describe('webhook URLs at creation', () => {
  it("refuses every spelling of loopback, the platform's own ports, private, link-local and metadata addresses with EGRESS_REFUSED", async () => {
    const { natsUrl, postgresUrl, redisUrl } = sharedInfra();
    // The platform's own NATS, Postgres and Redis of this run, and this replica's gRPC port.
    const ports = [natsUrl, postgresUrl, redisUrl].map((url) => new URL(url).port);
    expect(ports.every((port) => /^\d+$/.test(port))).toBe(true);
    const urls = [
      `https://127.0.0.1:${receiverPort}/`,
      ...ports.map((port) => `https://127.0.0.1:${port}/`),
      `https://127.0.0.1:${server.port}/`,
      'https://2130706433/',
      'https://0x7f000001/',
      'https://0177.0.0.1/',
      'https://127.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::1]/',
      'https://localhost/',
      'https://0.0.0.0/',
      'https://10.0.0.5/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/',
    ];
    for (const url of urls) {
      const error = await rejection(create(url));
      expect({ url, code: error.code, field: error.message.split(':')[0] }).toEqual({
        url,
        code: 'EGRESS_REFUSED',
        field: 'output.url',
      });
      expect(error.details?.['reason']).toEqual(expect.any(String));
    }
    // An update cannot point an existing task inside either.
    dns.set('hooks.example.com', [PUBLIC]);
    const { task } = await create('https://hooks.example.com/in');
    const refused = await rejection(
      client.rpc.updateTask({ tenantId: 'acme', taskId: task!.taskId, specJson: spec('https://[::1]:5432/') }),
    );
    expect(refused.code).toBe('EGRESS_REFUSED');
    expect(connections).toBe(0);
  });

  it('refuses a host name that resolves inside, and accepts one that resolves to public addresses', async () => {
    dns.set('internal.example.com', [PUBLIC, { address: '10.1.2.3', family: 4 }]);
    const error = await rejection(create('https://internal.example.com/hook'));
    expect(error).toMatchObject({ code: 'EGRESS_REFUSED', details: { reason: 'private' } });
    expect(error.message).not.toContain('10.1.2.3');
    dns.set('public.example.com', [PUBLIC]);
    expect((await create('https://public.example.com/hook')).task?.taskId).toMatch(/^task_/);
  });

  it('refuses a URL with a user name and password, and the password reaches no log line', async () => {
    const error = await rejection(create('https://alice:hunter2-pw@public.example.com/hook?token=tok-s3cr3t'));
    expect(error).toMatchObject({ code: 'EGRESS_REFUSED', details: { reason: 'userinfo' } });
    expect(error.message).not.toMatch(/hunter2|tok-s3cr3t/);
    expect(logLines.filter((line) => /hunter2|tok-s3cr3t/.test(line))).toEqual([]);
  });
});

describe('webhook deliveries', () => {
  it('a URL that resolved to a public address at creation and resolves to loopback at delivery is not connected to', async () => {
    dns.set('rebind.example.com', [PUBLIC]);
    const { task } = await create(`http://rebind.example.com:${receiverPort}/hook`);
    dns.set('rebind.example.com', [LOOPBACK]);
    lookups.length = 0;
    const outcome = await fireAndDeliver(task!.taskId);
    expect(lookups).toContain('rebind.example.com');
    expect(connections).toBe(0);
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
    expect(outcome.last_error).toMatch(/^EGRESS_REFUSED: the URL reaches a loopback address/);
  });

  it('a task stored before the guard with a loopback URL, or one with a password in it, is never connected to, and the password is logged and stored nowhere', async () => {
    dns.set('old.example.com', [PUBLIC]);
    const legacy = [
      `http://127.0.0.1:${receiverPort}/legacy`,
      `http://olduser:hunter2-legacy@127.0.0.1:${receiverPort}/legacy?sig=sig-s3cr3t`,
    ];
    for (const url of legacy) {
      const { task } = await create('https://old.example.com/hook');
      // What a task created by an earlier release may hold: the URL was never checked.
      await db.query(
        `UPDATE trigger.tasks SET spec = jsonb_set(spec, '{output,url}', to_jsonb($2::text)) WHERE task_id = $1`,
        [task!.taskId, url],
      );
      const outcome = await fireAndDeliver(task!.taskId);
      expect(outcome.status).toBe('failed');
      expect(outcome.last_error).toMatch(/^EGRESS_REFUSED/);
      expect(outcome.last_error).not.toMatch(/hunter2|sig-s3cr3t|olduser/);
    }
    expect(connections).toBe(0);
    const failures = logLines.filter((line) => line.includes('webhook delivery failed'));
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(logLines.filter((line) => /hunter2|sig-s3cr3t|olduser/.test(line))).toEqual([]);
  });
});
