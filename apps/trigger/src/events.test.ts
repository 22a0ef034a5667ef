import { triggerEventSubject } from '@platform/contracts';
import { connectNats, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection, startReplicas, testLogger, type Replicas } from './test-support/trigger-harness.js';

let nats: NatsServerHandle;
let nc: NatsConnection;
let r: Replicas;

beforeAll(async () => {
  // A NATS server of its own: the external-events consumer is one per server.
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'trigger-events-test', logger: testLogger });
  r = await startReplicas(2, '2026-06-01T12:00:00Z', { NATS_URL: nats.url });
});

afterAll(async () => {
  await r?.stop();
  await nc?.drain();
  await nats?.stop();
});

async function eventTask(tenantId: string, trigger: Record<string, unknown>): Promise<string> {
  const spec = {
    trigger: { type: 'event', source: 'shop', eventType: 'price.changed', ...trigger },
    executor: 'noop_exec',
  };
  const { task } = await r.client.rpc.createTask({
    tenantId,
    userId: 'u',
    specJson: JSON.stringify(spec),
    requestId: '',
  });
  expect(task).toMatchObject({ status: 'ACTIVE', triggerType: 'event', nextFireAt: undefined });
  return task!.taskId;
}

function publish(tenantId: string, eventId: string, data: Record<string, unknown>, type = 'price.changed') {
  return r.client.rpc.publishEvent({ tenantId, eventId, source: 'shop', type, dataJson: JSON.stringify(data) });
}

describe('event triggers', () => {
  it('refuses a malformed filter at creation, naming the field', async () => {
    const error = await rejection(
      r.client.rpc.createTask({
        tenantId: 'acme',
        userId: '',
        requestId: '',
        specJson: JSON.stringify({
          trigger: { type: 'event', source: 'shop', eventType: 'x', filter: 'price <' },
          executor: 'noop_exec',
        }),
      }),
    );
    expect(error.code).toBe('INVALID_TASK_SPEC');
    expect(error.message).toMatch(/^trigger\.filter: not a valid filter expression: \[FILTER_SYNTAX\] Parse error/);
  });

  it('resolves everything a filter names at creation: unknown functions, invalid or dynamic patterns and oversized ones are refused, naming the problem', async () => {
    const refused = async (filter: string) => {
      const error = await rejection(
        r.client.rpc.createTask({
          tenantId: 'acme',
          userId: '',
          requestId: '',
          specJson: JSON.stringify({
            trigger: { type: 'event', source: 'shop', eventType: 'x', filter },
            executor: 'noop_exec',
          }),
        }),
      );
      expect(error.code).toBe('INVALID_TASK_SPEC');
      return error.message;
    };
    expect(await refused('lower(subject) == "x"')).toMatch(
      /^trigger\.filter: .*\[FILTER_UNKNOWN_FUNCTION\] there is no function "lower"/,
    );
    expect(await refused('subject ~= "(unclosed"')).toMatch(
      /\[FILTER_INVALID_PATTERN\] "\(unclosed" is not a valid RE2 pattern: .*missing closing \)/,
    );
    // Lookarounds and backreferences are not RE2 (they are what makes backtracking engines exponential).
    expect(await refused('subject ~= "(?=x)y"')).toMatch(/\[FILTER_INVALID_PATTERN\]/);
    expect(await refused('subject ~= "(a)\\\\1"')).toMatch(/\[FILTER_INVALID_PATTERN\]/);
    // The problem quotes the pattern whatever its characters (gRPC metadata holds ASCII only).
    expect(await refused('subject ~= "(café"')).toMatch(
      /\[FILTER_INVALID_PATTERN\] "\(café" is not a valid RE2 pattern/,
    );
    expect(await refused('subject ~= pattern')).toMatch(/\[FILTER_DYNAMIC_PATTERN\]/);
    expect(await refused('subject ~= "a" + suffix')).toMatch(/\[FILTER_DYNAMIC_PATTERN\]/);
    expect(await refused('subject ~= ".{400}.{400}"')).toMatch(
      /\[FILTER_PATTERN_TOO_LARGE\] .* compiles to \d+ instructions, more than 500/,
    );
    expect(await refused(`subject ~= "${'a'.repeat(1_001)}"`)).toMatch(
      /\[FILTER_PATTERN_TOO_LARGE\] .* longer than 1000 characters/,
    );
    // A condition is an expression of the same language, checked the same way.
    const condition = await rejection(
      r.client.rpc.createTask({
        tenantId: 'acme',
        userId: '',
        requestId: '',
        specJson: JSON.stringify({
          trigger: { type: 'condition', tool: 'noop_exec', intervalSeconds: 60, condition: 'nope(result) > 1' },
          executor: 'noop_exec',
        }),
      }),
    );
    expect(condition.message).toMatch(/^trigger\.condition: .*\[FILTER_UNKNOWN_FUNCTION\]/);
  });

  it("matches the docs' RE2 example: (?i) makes a pattern case-insensitive", async () => {
    const taskId = await eventTask('docs-co', { filter: 'subject ~= "(?i)newsletter"' });
    expect((await publish('docs-co', 'n-1', { subject: 'The Weekly NEWSLETTER' })).firedTaskIds).toEqual([taskId]);
    expect((await publish('docs-co', 'n-2', { subject: 'Invoice 42' })).firedTaskIds).toEqual([]);
  });

  it("records a filter that fails on an event as the task's lastError (GetTask and ListTasks), and clears it when the spec is replaced", async () => {
    const spec = {
      trigger: { type: 'event', source: 'shop', eventType: 'price.changed', filter: 'price < 300' },
      executor: 'noop_exec',
    };
    const { task } = await r.client.rpc.createTask({
      tenantId: 'err-co',
      userId: 'u',
      specJson: JSON.stringify(spec),
      requestId: '',
    });
    const taskId = task!.taskId;
    expect(task!.lastError).toBeUndefined();
    expect((await publish('err-co', 'e-1', { price: 'cheap' })).firedTaskIds).toEqual([]);
    const { task: failed } = await r.client.rpc.getTask({ tenantId: 'err-co', taskId });
    expect(failed!.lastError).toMatchObject({
      code: 'FILTER_EVALUATION_FAILED',
      message: expect.stringMatching(/Expected a number, but got a text/),
    });
    expect(failed!.lastError!.at).toBeInstanceOf(Date);
    const { tasks } = await r.client.rpc.listTasks({ tenantId: 'err-co', pageSize: 10, pageToken: '' });
    expect(tasks[0]!.lastError?.code).toBe('FILTER_EVALUATION_FAILED');
    // The filter still works on the events it can read.
    expect((await publish('err-co', 'e-2', { price: 250 })).firedTaskIds).toEqual([taskId]);
    const { task: updated } = await r.client.rpc.updateTask({
      tenantId: 'err-co',
      taskId,
      specJson: JSON.stringify(spec),
    });
    expect(updated!.lastError).toBeUndefined();
  });

  it('fires the tasks whose source, type and filter match, with the event in the fire, once per event id', async () => {
    const cheap = await eventTask('acme', { filter: 'price < 300 and product.name == "Flight to Tokyo"' });
    const any = await eventTask('acme', {});
    const expensive = await eventTask('acme', { filter: 'price >= 1000' });
    const otherType = await eventTask('acme', { eventType: 'stock.changed' });
    const otherTenant = await eventTask('globex', {});

    const first = await publish('acme', 'evt-1', { price: 250, product: { name: 'Flight to Tokyo' } });
    expect(first.eventId).toBe('evt-1');
    expect(first.firedTaskIds.sort()).toEqual([cheap, any].sort());
    expect((await publish('acme', 'evt-1', { price: 250, product: { name: 'Flight to Tokyo' } })).firedTaskIds).toEqual(
      [],
    );
    await r.round();

    const fired = r.executor.calls.filter((c) => [cheap, any, expensive, otherType, otherTenant].includes(c.taskId));
    expect(fired.map((c) => c.taskId).sort()).toEqual([cheap, any].sort());
    for (const call of fired) {
      expect(call).toMatchObject({
        kind: 'event',
        tenantId: 'acme',
        payload: {
          eventId: 'evt-1',
          source: 'shop',
          type: 'price.changed',
          data: { price: 250, product: { name: 'Flight to Tokyo' } },
        },
      });
    }
    const { fires } = await r.client.rpc.listFires({ tenantId: 'acme', taskId: cheap, pageSize: 10, pageToken: '' });
    expect(fires).toMatchObject([{ kind: 'event', fireKey: 'event:evt-1', status: 'succeeded' }]);
  });

  it('a paused event task does not fire', async () => {
    const taskId = await eventTask('paused-co', {});
    await r.client.rpc.pauseTask({ tenantId: 'paused-co', taskId });
    expect((await publish('paused-co', 'evt-p', {})).firedTaskIds).toEqual([]);
    await r.client.rpc.resumeTask({ tenantId: 'paused-co', taskId });
    expect((await publish('paused-co', 'evt-q', {})).firedTaskIds).toEqual([taskId]);
  });

  it('refuses an invalid event', async () => {
    expect(
      (
        await rejection(
          r.client.rpc.publishEvent({ tenantId: 'acme', eventId: '', source: 'shop', type: 'x', dataJson: '[1]' }),
        )
      ).code,
    ).toBe('INVALID_EVENT');
    expect(
      (
        await rejection(
          r.client.rpc.publishEvent({ tenantId: 'acme', eventId: '', source: '', type: 'x', dataJson: '{}' }),
        )
      ).message,
    ).toMatch(/^source: /);
    expect(
      (
        await rejection(
          r.client.rpc.publishEvent({ tenantId: 'acme', eventId: '', source: 's', type: 'x', dataJson: '{' }),
        )
      ).code,
    ).toBe('INVALID_EVENT');
  });

  it('routes events published on JetStream (durable), skipping malformed ones', async () => {
    const taskId = await eventTask('jet', { filter: 'level > 2' });
    const js = jetstream(nc);
    const subject = triggerEventSubject('jet');
    await js.publish(subject, 'not json');
    await js.publish(
      subject,
      JSON.stringify({ tenantId: 'jet', eventId: 'j-1', source: 'shop', type: 'price.changed', data: { level: 1 } }),
    );
    await js.publish(
      subject,
      JSON.stringify({ tenantId: 'jet', eventId: 'j-2', source: 'shop', type: 'price.changed', data: { level: 3 } }),
    );
    await js.publish(
      subject,
      JSON.stringify({ tenantId: 'jet', eventId: 'j-2', source: 'shop', type: 'price.changed', data: { level: 3 } }),
    );
    await expect
      .poll(
        async () =>
          (await r.client.rpc.listFires({ tenantId: 'jet', taskId, pageSize: 10, pageToken: '' })).fires.map(
            (f) => f.fireKey,
          ),
        { timeout: 10_000 },
      )
      .toEqual(['event:j-2']);
  });
});
