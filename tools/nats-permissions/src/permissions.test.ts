import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  RUN_ENDED_SUBJECT_PREFIX,
  RUN_EVENTS_STREAM,
  RUN_EVENTS_SUBJECT_PREFIX,
  runEndedSubject,
  runEventsSubject,
  toolSubject,
  toolBatchSubject,
  TOOL_QUEUE_GROUP,
  TRIGGERED_RUN_SUBJECT_PREFIX,
  TRIGGERED_RUNS_STREAM,
  triggeredRunSubject,
  natsInboxPrefix,
} from '@platform/contracts';
import { createLogger, ensureStream, lastMessageJson } from '@platform/service-kit';
import { startNatsServer, workspaceRoot, type NatsServerHandle } from '@platform/testing';
import { defineTool, serveRunner, ToolCatalog, type ToolRunner } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { platformPrincipals } from './platform-permissions.js';
import { renderNatsAuthorization } from './render-config.js';
import { generatePasswords } from './secrets.js';

const runEndedSubjectWildcard = `${RUN_ENDED_SUBJECT_PREFIX}.*`;
const logger = createLogger({ service: 'nats-permissions-test', level: 'silent' });
const principals = platformPrincipals([{ name: 'weather-tools', user: 'weather', tools: ['get_forecast'] }]);
const passwords = generatePasswords(principals);
let dir: string;
let server: NatsServerHandle;
const connections: NatsConnection[] = [];

/** A connection as `user`, remembering every permission violation the server reports to it. */
async function login(user: string): Promise<NatsConnection & { violations: string[] }> {
  // As service-kit connects: replies under the user's own inbox prefix.
  const nc = await connect({
    servers: server.url,
    user,
    pass: passwords[user],
    name: `test-${user}`,
    inboxPrefix: natsInboxPrefix(user)!,
  });
  connections.push(nc);
  const violations: string[] = [];
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'error') violations.push(status.error.message);
  })();
  return Object.assign(nc, { violations });
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function expectPublishRefused(user: string, subject: string): Promise<void> {
  const nc = await login(user);
  nc.publish(subject, '{"forged":true}');
  await nc.flush();
  await until(
    () => nc.violations.some((v) => v.includes(`Publish to "${subject}"`)),
    `the server to refuse ${user} publishing to ${subject}`,
  );
}

async function expectSubscribeRefused(user: string, subject: string, queue?: string): Promise<void> {
  const nc = await login(user);
  const sub = nc.subscribe(subject, queue ? { queue } : {});
  const closedWith = await sub.closed;
  expect(closedWith?.message ?? '(subscription allowed)').toContain(
    `Permissions Violation for Subscription to "${subject}"`,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nats-permissions-'));
  const file = path.join(dir, 'auth.conf');
  writeFileSync(file, renderNatsAuthorization(principals, { kind: 'inline', passwords }));
  server = await startNatsServer({ configFile: file });
});

afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('logging in', () => {
  it('refuses a client without credentials or with a wrong password', async () => {
    await expect(connect({ servers: server.url })).rejects.toThrow(/Authorization Violation/);
    await expect(connect({ servers: server.url, user: 'orchestrator', pass: 'not-the-password' })).rejects.toThrow(
      /Authorization Violation/,
    );
    await expect(
      connect({ servers: server.url, user: 'tool-runner', pass: passwords['orchestrator'] }),
    ).rejects.toThrow(/Authorization Violation/);
  });
});

describe('what is allowed works', () => {
  let runner: ToolRunner;
  beforeAll(async () => {
    const runnerConnection = await login('tool-runner');
    const calculator = defineTool({
      name: 'calculator',
      description: 'adds',
      input: z.object({ a: z.number(), b: z.number() }),
      handler: async ({ a, b }) => ({ sum: a + b }),
    });
    runner = await serveRunner({
      nc: runnerConnection,
      name: 'builtin-tools',
      version: '1.0.0',
      tools: [calculator],
      logger,
    });
  });
  afterAll(async () => runner?.stop(1_000));

  it('a runner answers discovery and its own tool calls; the orchestrator discovers and calls it', async () => {
    const orchestrator = await login('orchestrator');
    const catalog = new ToolCatalog({ nc: orchestrator, logger, discoveryWaitMs: 500 });
    await catalog.refresh();
    expect(catalog.list().map((e) => e.name)).toContain('calculator');
    const reply = await orchestrator.request(toolSubject('calculator'), JSON.stringify({ a: 2, b: 3 }), {
      timeout: 10_000,
    });
    expect(reply.string().length).toBeGreaterThan(0);
    expect(orchestrator.violations).toEqual([]);
  });

  it("an api replica hears another's API key revocation", async () => {
    const [one, other] = [await login('api'), await login('api')];
    const sub = other.subscribe('platform.api-keys.revoked', { max: 1 });
    await other.flush();
    one.publish('platform.api-keys.revoked', JSON.stringify({ keyId: '0123456789abcdef' }));
    for await (const message of sub) expect(message.json()).toEqual({ keyId: '0123456789abcdef' });
    expect([...one.violations, ...other.violations]).toEqual([]);
  });

  it('the orchestrator publishes run events to the stream and the api reads them back', async () => {
    const orchestrator = await login('orchestrator');
    await ensureStream(orchestrator, {
      name: RUN_EVENTS_STREAM,
      subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`],
      maxAgeMs: 60_000,
    });
    await jetstream(orchestrator).publish(runEventsSubject('run_perm1'), JSON.stringify({ seq: 1 }));
    const api = await login('api');
    await ensureStream(api, {
      name: RUN_EVENTS_STREAM,
      subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`],
      maxAgeMs: 60_000,
    });
    expect(await lastMessageJson(api, RUN_EVENTS_STREAM, runEventsSubject('run_perm1'))).toEqual({ seq: 1 });
    const consumer = await jetstream(api).consumers.get(RUN_EVENTS_STREAM, {
      filter_subjects: runEventsSubject('run_perm1'),
    });
    const first = await consumer.next({ expires: 5_000 });
    expect(first?.json()).toEqual({ seq: 1 });
    await consumer.delete();
    expect([...orchestrator.violations, ...api.violations]).toEqual([]);
  });
});

describe('a runner is confined to its own tools', () => {
  it.each([
    ['run events', 'platform.run-events.>', undefined],
    ['one run', 'platform.run-events.run_1', undefined],
    ["another runner's tool", toolSubject('get_weather'), TOOL_QUEUE_GROUP],
    ["another runner's tool batches", toolBatchSubject('get_weather'), TOOL_QUEUE_GROUP],
    ["another team's tool", toolSubject('get_forecast'), TOOL_QUEUE_GROUP],
    ['every tool', 'platform.tool.>', TOOL_QUEUE_GROUP],
    ['memory ingestion work', 'platform.memory.ingest.>', undefined],
    ['replies to others', '_INBOX.>', undefined],
    ['the JetStream API', '$JS.API.>', undefined],
    ["another runner's discovery", '$SRV.INFO.travel-runner', undefined],
    ['everything', '>', undefined],
  ])('may not subscribe to %s (%s)', async (_what, subject, queue) => {
    await expectSubscribeRefused('tool-runner', subject, queue);
  });

  it.each([
    ['a run event, as if it were the orchestrator', 'platform.run-events.run_1'],
    ['a call of another tool', toolSubject('get_weather')],
    ['a call of its own tool', toolSubject('calculator')],
    ['finished-turn work for memory', 'platform.memory.ingest.acme.turn'],
    ['an agent-pool event', 'platform.agent-pool.events.acme.expired'],
    ['a trigger event', 'platform.trigger.events.acme'],
    ['a cancel', 'platform.orchestrator.cancel'],
    ['a JetStream stream lookup', `$JS.API.STREAM.INFO.${RUN_EVENTS_STREAM}`],
    ['a consumer on the run events', `$JS.API.CONSUMER.CREATE.${RUN_EVENTS_STREAM}`],
    ['a stream delete', `$JS.API.STREAM.DELETE.${RUN_EVENTS_STREAM}`],
    ['a discovery request', '$SRV.PING'],
  ])('may not publish %s (%s)', async (_what, subject) => {
    await expectPublishRefused('tool-runner', subject);
  });

  it('a runner serves batches of its own tools, and the orchestrator sends them; the trigger service may not call tools (its tasks go through the tool gate)', async () => {
    const runner = await login('tool-runner');
    const own = runner.subscribe(toolBatchSubject('calculator'), {
      queue: TOOL_QUEUE_GROUP,
      callback: (_err, msg) => void msg.respond('{"results":[]}'),
    });
    await runner.flush();
    const orchestrator = await login('orchestrator');
    const reply = await orchestrator.request(toolBatchSubject('calculator'), '{}', { timeout: 10_000 });
    expect(reply.string()).toBe('{"results":[]}');
    own.unsubscribe();
    expect([...runner.violations, ...orchestrator.violations]).toEqual([]);
    await expectPublishRefused('trigger', toolSubject('calculator'));
    await expectPublishRefused('trigger', toolBatchSubject('calculator'));
  });

  it("a team's runner declared in a runners file serves its tool and nothing else", async () => {
    const weather = await login('weather');
    const own = weather.subscribe(toolSubject('get_forecast'), { queue: TOOL_QUEUE_GROUP });
    await weather.flush();
    await expectSubscribeRefused('weather', toolSubject('calculator'), TOOL_QUEUE_GROUP);
    own.unsubscribe();
    expect(weather.violations).toEqual([]);
  });
});

describe('subjects and streams added by later features', () => {
  it("the orchestrator publishes run-ended notices that memory hears, and reads child runs' stored events", async () => {
    const memory = await login('memory');
    const heard: string[] = [];
    const sub = memory.subscribe(runEndedSubjectWildcard, {
      queue: 'memory-run-end',
      callback: (_err, msg) => void heard.push(msg.subject),
    });
    await memory.flush();
    const orchestrator = await login('orchestrator');
    orchestrator.publish(runEndedSubject('acme'), JSON.stringify({ tenantId: 'acme', runId: 'run_1' }));
    await orchestrator.flush();
    await until(() => heard.length === 1, 'memory to hear the run-ended notice');
    sub.unsubscribe();
    // A parent forwards its child's events from the stream (an ordered consumer of its own).
    await ensureStream(orchestrator, {
      name: RUN_EVENTS_STREAM,
      subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`],
      maxAgeMs: 60_000,
    });
    await jetstream(orchestrator).publish(runEventsSubject('run_child1'), JSON.stringify({ seq: 1 }));
    const consumer = await jetstream(orchestrator).consumers.get(RUN_EVENTS_STREAM, {
      filter_subjects: runEventsSubject('run_child1'),
    });
    expect((await consumer.next({ expires: 5_000 }))?.json()).toEqual({ seq: 1 });
    await consumer.delete();
    expect([...memory.violations, ...orchestrator.violations]).toEqual([]);
  });

  it('the trigger service keeps TRIGGER_RUNS and consumes it; the orchestrator publishes into it', async () => {
    const trigger = await login('trigger');
    await ensureStream(trigger, {
      name: TRIGGERED_RUNS_STREAM,
      subjects: [`${TRIGGERED_RUN_SUBJECT_PREFIX}.>`],
      maxAgeMs: 60_000,
    });
    const orchestrator = await login('orchestrator');
    await jetstream(orchestrator).publish(triggeredRunSubject('acme'), JSON.stringify({ runId: 'run_t1' }), {
      msgID: 'run_t1',
    });
    const jsm = await jetstreamManager(trigger, { checkAPI: false });
    await jsm.consumers.add(TRIGGERED_RUNS_STREAM, {
      durable_name: 'trigger-runs-test',
      ack_policy: AckPolicy.Explicit,
    });
    const consumer = await jetstream(trigger).consumers.get(TRIGGERED_RUNS_STREAM, 'trigger-runs-test');
    const message = await consumer.next({ expires: 5_000 });
    expect(message?.json()).toEqual({ runId: 'run_t1' });
    message?.ack();
    await consumer.info();
    expect([...trigger.violations, ...orchestrator.violations]).toEqual([]);
  });

  it.each([
    ['tool-runner', 'platform.run-ended.acme'],
    ['memory', 'platform.run-ended.acme'],
    ['api', 'platform.trigger.runs.acme'],
    ['trigger', 'platform.trigger.runs.acme'],
    ['memory', `$JS.API.CONSUMER.CREATE.${TRIGGERED_RUNS_STREAM}`],
    // Only the api tells its replicas of revoked API keys (docs/access.md#api-keys).
    ['orchestrator', 'platform.api-keys.revoked'],
    ['tool-runner', 'platform.api-keys.revoked'],
  ])('%s may not publish to %s', async (user, subject) => {
    await expectPublishRefused(user, subject);
  });

  it.each([
    ['tool-runner', 'platform.run-ended.*'],
    ['api', 'platform.run-ended.*'],
    ['trigger', 'platform.trigger.runs.>'],
    ['tool-runner', 'platform.api-keys.revoked'],
  ])('%s may not subscribe to %s', async (user, subject) => {
    await expectSubscribeRefused(user, subject);
  });
});

describe('services keep to their own part', () => {
  it.each([
    ['api', 'platform.run-events.run_1'],
    ['agent-pool', 'platform.run-events.run_1'],
    ['memory', 'platform.run-events.run_1'],
    ['trigger', 'platform.run-events.run_1'],
    ['event-publisher', 'platform.run-events.run_1'],
    ['api', 'platform.tool.calculator'],
    ['memory', 'platform.memory.ingest.acme.turn'],
    ['event-publisher', 'platform.tool.calculator'],
    ['api', `$JS.API.STREAM.DELETE.${RUN_EVENTS_STREAM}`],
    // It may purge the run-events stream (a deleted conversation's events), no other stream.
    ['orchestrator', '$JS.API.STREAM.PURGE.MEMORY_INGEST'],
    ['orchestrator', '$JS.API.STREAM.INFO.MEMORY_INGEST_DEAD'],
    ['trigger', '$JS.API.CONSUMER.CREATE.MEMORY_INGEST'],
  ])('%s may not publish to %s', async (user, subject) => {
    await expectPublishRefused(user, subject);
  });

  it.each([
    ['memory', toolSubject('calculator'), TOOL_QUEUE_GROUP],
    ['trigger', 'platform.run-events.>', undefined],
    ['api', toolSubject('calculator'), TOOL_QUEUE_GROUP],
    ['agent-pool', 'platform.orchestrator.cancel', undefined],
    // Each reads its own replies only: not every inbox, not another's (the orchestrator's tool results).
    ['api', '_INBOX.>', undefined],
    ['trigger', '_INBOX.orchestrator.>', undefined],
    ['memory', '_INBOX.orchestrator.abc.1', undefined],
    ['agent-pool', '_INBOX.trigger.>', undefined],
    ['event-publisher', '_INBOX.orchestrator.>', undefined],
    ['orchestrator', '_INBOX.api.>', undefined],
  ])('%s may not subscribe to %s', async (user, subject, queue) => {
    await expectSubscribeRefused(user, subject, queue);
  });
});

describe('replies come to their own inbox', () => {
  it('a service that connects with the default _INBOX prefix gets no reply: its requests need the prefix of its user', async () => {
    const plain = await connect({
      servers: server.url,
      user: 'trigger',
      pass: passwords['trigger'],
      name: 'test-trigger-plain',
    });
    connections.push(plain);
    const violations: string[] = [];
    void (async () => {
      for await (const status of plain.status()) if (status.type === 'error') violations.push(status.error.message);
    })();
    // $JS.API.INFO is a request the trigger may make; the server would answer it, but not into _INBOX.<nuid>.
    await expect(plain.request('$JS.API.INFO', '', { timeout: 1_000 })).rejects.toThrow();
    await until(
      () => violations.some((v) => /subscription/i.test(v) && v.includes('_INBOX.')),
      'the server to refuse the default inbox',
    );
    const own = await login('trigger');
    expect((await own.request('$JS.API.INFO', '', { timeout: 5_000 })).json()).toMatchObject({
      type: 'io.nats.jetstream.api.v1.account_info_response',
    });
    expect(own.violations).toEqual([]);
  });
});

describe('the committed configuration', () => {
  it.each(['deploy/nats/auth.conf', 'deploy/k8s/base/nats/auth.conf'])(
    '%s is what the generator writes (regenerate with platform-nats-config config)',
    (file) => {
      const committed = readFileSync(path.join(workspaceRoot(), file), 'utf8');
      expect(committed).toBe(renderNatsAuthorization(platformPrincipals(), { kind: 'env' }));
    },
  );
});
