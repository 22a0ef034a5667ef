import { startNatsServer, startPlatform, type NatsServerHandle, type Platform } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, JWT_SECRET, tokenFor } from './support.js';

// The api and the real trigger service, each its own process: what a tenant's filter does to the
// trigger service is seen from the outside, as another tenant sees it.
let nats: NatsServerHandle;
let platform: Platform;

beforeAll(async () => {
  nats = await startNatsServer();
  platform = await startPlatform({
    natsUrl: nats.url,
    databaseUrl: await createSuiteDatabase('event-filters'),
    redisUrl: await allocateSuiteRedis(),
    jwtSecret: JWT_SECRET,
    apps: ['trigger', 'api'],
  });
});
afterAll(async () => {
  await platform?.stop();
  await nats?.stop();
});

interface TaskJson {
  taskId: string;
  lastError: { code: string; message: string; at: string } | null;
}

const eventTask = (filter: string) => ({
  trigger: { type: 'event', source: 'mail', eventType: 'received', filter },
  action: { instruction: 'File it.' },
});

describe('event filters through the api and the trigger service', () => {
  it('matches the pathological (a+)+$ over a 256 KiB event in linear time, and answers another tenant while it runs', async () => {
    // 28 characters took 9.2 s with the backtracking engine (3.6x per two more): 256 KiB would never end.
    const tasks = await Promise.all(
      Array.from({ length: 10 }, () =>
        api<TaskJson>(platform, 'POST', '/v1/tasks', 'redos-attacker', eventTask('x ~= "(a+)+$"')),
      ),
    );
    expect(tasks.map((t) => t.status)).toEqual(Array(10).fill(201));
    const x = `${'a'.repeat(256 * 1024 - 16)}!`;
    const published = api<{ firedTaskIds: string[] }>(platform, 'POST', '/v1/events', 'redos-attacker', {
      source: 'mail',
      type: 'received',
      data: { x },
    });
    // Another tenant's request, sent while the attacker's event is being matched.
    const other = await api<{ tasks: unknown[] }>(platform, 'GET', '/v1/tasks', 'bystander');
    expect(other).toMatchObject({ status: 200, body: { tasks: [] } });
    expect(await published).toMatchObject({ status: 202, body: { firedTaskIds: [] } });
    expect((await api(platform, 'GET', '/v1/tasks', 'bystander')).status).toBe(200);
    // Matched, not failed: no task records an error.
    const listed = await api<{ tasks: TaskJson[] }>(platform, 'GET', '/v1/tasks', 'redos-attacker');
    expect(listed.body.tasks.map((t) => t.lastError)).toEqual(Array(10).fill(null));
  });

  it('refuses at creation a filter that could never match, 400 INVALID_TASK_SPEC naming the problem', async () => {
    for (const [filter, problem] of [
      ['lower(subject) == "x"', /trigger\.filter: .*\[FILTER_UNKNOWN_FUNCTION\] there is no function "lower"/],
      ['subject ~= "(news"', /trigger\.filter: .*\[FILTER_INVALID_PATTERN\] "\(news" is not a valid RE2 pattern/],
      ['subject ~= "(?<!re)news"', /\[FILTER_INVALID_PATTERN\]/],
    ] as const) {
      const refused = await api<{ error: { code: string; message: string } }>(
        platform,
        'POST',
        '/v1/tasks',
        'acme',
        eventTask(filter),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('INVALID_TASK_SPEC');
      expect(refused.body.error.message).toMatch(problem);
    }
  });

  it("fires on the docs' (?i)newsletter example, and shows a filter that fails on an event as the task's lastError", async () => {
    const newsletter = await api<TaskJson>(
      platform,
      'POST',
      '/v1/tasks',
      'acme',
      eventTask('subject ~= "(?i)newsletter"'),
    );
    expect(newsletter.status).toBe(201);
    const cheap = await api<TaskJson>(
      platform,
      'POST',
      '/v1/tasks',
      'acme',
      eventTask('subject ~= "(?i)newsletter" and price < 300'),
    );
    const sent = await api<{ firedTaskIds: string[] }>(platform, 'POST', '/v1/events', 'acme', {
      source: 'mail',
      type: 'received',
      data: { subject: 'Weekly NEWSLETTER', price: 'free' },
    });
    expect(sent.body.firedTaskIds).toEqual([newsletter.body.taskId]);
    const failed = await api<TaskJson>(platform, 'GET', `/v1/tasks/${cheap.body.taskId}`, 'acme');
    expect(failed.body.lastError).toMatchObject({
      code: 'FILTER_EVALUATION_FAILED',
      message: expect.stringContaining('Expected a number'),
    });
    expect(Date.parse(failed.body.lastError!.at)).not.toBeNaN();
    const listed = await api<{ tasks: TaskJson[] }>(platform, 'GET', '/v1/tasks', 'acme');
    expect(listed.body.tasks.find((t) => t.taskId === cheap.body.taskId)?.lastError?.code).toBe(
      'FILTER_EVALUATION_FAILED',
    );
    expect(listed.body.tasks.find((t) => t.taskId === newsletter.body.taskId)?.lastError).toBeNull();
  });

  it("sends the notification stream's headers at once, before the tenant has any notification", async () => {
    const controller = new AbortController();
    // The api's heartbeat is 15 s away: before the fix nothing, not even the status line, came until then.
    const deadline = setTimeout(() => controller.abort(), 5_000);
    try {
      const response = await fetch(`${platform.apiUrl}/v1/notifications`, {
        headers: { authorization: `Bearer ${await tokenFor('no-news-yet')}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
    } finally {
      clearTimeout(deadline);
      controller.abort();
    }
  });
});
