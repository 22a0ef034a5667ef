import type { triggerV1 } from '@platform/proto';
import { errors, GrpcHealthProbe, PlaintextTransport, type PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triggerEdgeApp } from '../test-support/trigger-edge-app.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';

/** The trigger service's feed, scoped like the real one (tenant, then user; its own suite tests the SQL). */
const feed: (triggerV1.Notification & { tenantId: string })[] = [];
const asked: triggerV1.ListNotificationsRequest[] = [];
let down = false;
function notify(tenantId: string, userId: string, type: string, body: Record<string, unknown>): void {
  const seq = feed.length + 1;
  feed.push({
    tenantId,
    seq,
    notificationId: `ntf_${seq}`,
    type,
    taskId: 'task_1',
    userId,
    bodyJson: JSON.stringify({ type, ...body }),
    createdAt: new Date(Date.UTC(2026, 5, 1, 0, 0, seq)),
  });
}
const trigger = {
  listNotifications: async (request: triggerV1.ListNotificationsRequest) => {
    asked.push(request);
    if (down) throw errors.unavailable('TRIGGER_UNAVAILABLE', 'the trigger service is down', { retryAfterSeconds: 1 });
    const notifications = feed
      .filter(
        (n) =>
          n.tenantId === request.tenantId &&
          n.seq > request.afterSeq &&
          (!request.userId || n.userId === request.userId || n.userId === ''),
      )
      .slice(0, request.limit)
      .map(({ tenantId: _tenant, ...n }) => n);
    return { notifications };
  },
} as unknown as PromiseClient<triggerV1.TriggerServiceClient>;

let app: FastifyInstance;
let url: string;
// Nothing listens there: the dependency is down, whatever the transport.
const deadProbe = new GrpcHealthProbe('127.0.0.1:1', new PlaintextTransport(), 'orchestrator');
const tokens: Record<string, string> = {};

beforeAll(async () => {
  const sign = (claims: Record<string, string>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
  tokens['alice'] = await sign({ tenant: 'acme', sub: 'alice' });
  tokens['bob'] = await sign({ tenant: 'acme', sub: 'bob' });
  tokens['globex'] = await sign({ sub: 'globex' });
  tokens['initech'] = await sign({ tenant: 'initech', sub: 'peter' });
  app = triggerEdgeApp(SECRET, trigger, deadProbe, {
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 60_000, notificationsPollMs: 20 },
  });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
  notify('acme', 'alice', 'fire.finished', { status: 'succeeded', result: { response: 'digest sent' } });
  notify('globex', 'globex', 'fire.finished', { status: 'succeeded', secret: 'globex only' });
  notify('acme', 'alice', 'fire.approval_requested', { status: 'waiting_approval' });
  notify('acme', 'bob', 'fire.finished', { status: 'failed' });
  notify('acme', '', 'fire.approval_expired', { status: 'failed' });
});
afterAll(async () => {
  await app.close();
  deadProbe.close();
});

interface Received {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** Opens the stream and reads until `count` events arrived (or `waitMs` passed: to show nothing more comes), then hangs up. */
async function read(
  who: string,
  count: number,
  headers: Record<string, string> = {},
  during?: () => void,
  waitMs = 5_000,
): Promise<{ status: number; contentType: string | null; events: Received[] }> {
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(), waitMs);
  const response = await fetch(`${url}/v1/notifications`, {
    headers: { authorization: `Bearer ${tokens[who]}`, ...headers },
    signal: controller.signal,
  });
  const events: Received[] = [];
  if (response.status === 200 && response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      while (events.length < count) {
        if (events.length > 0) during?.();
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
          );
          if (fields['data'] !== undefined)
            events.push({
              id: fields['id'] ?? '',
              event: fields['event'] ?? '',
              data: JSON.parse(fields['data']) as Record<string, unknown>,
            });
        }
      }
    } catch {
      // The deadline hung up: the test sees what arrived.
    }
  }
  clearTimeout(deadline);
  controller.abort();
  return { status: response.status, contentType: response.headers.get('content-type'), events };
}

describe('GET /v1/notifications', () => {
  it('streams the tenant user notifications (and those of tasks that name no user) with the feed seq as the event id', async () => {
    const { status, contentType, events } = await read('alice', 3);
    expect(status).toBe(200);
    expect(contentType).toContain('text/event-stream');
    expect(events.map((e) => [e.id, e.event])).toEqual([
      ['1', 'fire.finished'],
      ['3', 'fire.approval_requested'],
      ['5', 'fire.approval_expired'],
    ]);
    expect(events[0]!.data).toMatchObject({
      seq: 1,
      notificationId: 'ntf_1',
      type: 'fire.finished',
      result: { response: 'digest sent' },
      createdAt: '2026-06-01T00:00:01.000Z',
    });
    expect(asked.at(-1)).toMatchObject({ tenantId: 'acme', userId: 'alice' });
  });

  it('resumes after Last-Event-ID, then delivers what is recorded while the client is connected', async () => {
    let added = false;
    const { events } = await read('alice', 2, { 'last-event-id': '3' }, () => {
      if (added) return;
      added = true;
      notify('acme', 'alice', 'fire.finished', { status: 'succeeded', late: true });
    });
    expect(events.map((e) => e.id)).toEqual(['5', '6']);
    expect(events[1]!.data).toMatchObject({ late: true });
  });

  it('never shows another tenant or another user anything of theirs', async () => {
    const globex = await read('globex', 10, {}, undefined, 1_000);
    expect(globex.events.map((e) => e.data['secret'])).toEqual(['globex only']);
    const bob = await read('bob', 10, {}, undefined, 1_000);
    expect(bob.events.map((e) => e.id)).toEqual(['4', '5']);
    // Resuming from a seq of another tenant's feed reads only the caller's own after it.
    const resumed = await read('globex', 10, { 'last-event-id': '1' }, undefined, 1_000);
    expect(resumed.events.map((e) => e.id)).toEqual(['2']);
  });

  it('sends the stream headers at once, before any notification exists (the heartbeat here is a minute away)', async () => {
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(), 5_000);
    try {
      // fetch resolves when the status line and headers arrive; before the fix they waited for the first write.
      const response = await fetch(`${url}/v1/notifications`, {
        headers: { authorization: `Bearer ${tokens['initech']}` },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expect(controller.signal.aborted).toBe(false);
    } finally {
      clearTimeout(deadline);
      controller.abort();
    }
  });

  it('answers 503 with retry-after while the trigger service is down, and 401 without a token', async () => {
    down = true;
    try {
      const response = await fetch(`${url}/v1/notifications`, {
        headers: { authorization: `Bearer ${tokens['alice']}` },
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
    } finally {
      down = false;
    }
    expect((await fetch(`${url}/v1/notifications`)).status).toBe(401);
  });
});
