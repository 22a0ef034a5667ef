// The agents API through the real services (api, orchestrator's AgentService, Postgres, NATS,
// llm-sim): create, update with If-Match (a stale write is 412, a write without one 428), another
// tenant answered 404 on every route, messages run under the active version, a pinned conversation
// stays on its version, rollback, a deleted agent refused at message time (410 AGENT_DELETED by id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlatform, tokenFor, type SuitePlatform } from './support.js';

const A = 'agents-acme';
const B = 'agents-globex';

let platform: SuitePlatform;

/** An answer's JSON, as far as this suite reads it (an agent, a turn, a run, a pin, a diff, an error). */
interface Reply {
  id?: string;
  name?: string;
  activeVersion?: number | null;
  latestVersion?: number | null;
  revision?: number;
  deletedAt?: string | null;
  spec?: unknown;
  runId?: string;
  agent?: unknown;
  agents?: Array<{ id: string }>;
  changes?: unknown[];
  error?: { code: string; message: string };
}

interface Answer {
  status: number;
  etag: string | null;
  body: Reply;
}

async function call(
  method: string,
  path: string,
  tenant: string,
  options: { body?: unknown; ifMatch?: string } = {},
): Promise<Answer> {
  const response = await fetch(`${platform.apiUrl}${path}`, {
    method,
    headers: {
      // A developer: the agents' writes need that role (docs/access.md).
      authorization: `Bearer ${await tokenFor({ tenant, roles: ['developer'] })}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.ifMatch ? { 'if-match': options.ifMatch } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: response.status, etag: response.headers.get('etag'), body: (await response.json()) as Reply };
}

const spec = (instructions: string, extra: Record<string, unknown> = {}) => ({
  name: 'e2e-support-bot',
  instructions,
  labels: { team: 'billing' },
  tools: ['calculator'],
  ...extra,
});

const send = (conversationId: string, tenant = A, body: Record<string, unknown> = { agent: 'e2e-support-bot' }) =>
  call('POST', `/v1/conversations/${conversationId}/messages`, tenant, { body: { content: 'Hello there', ...body } });

let agentId = '';

beforeAll(async () => {
  platform = await bootPlatform('agents-api', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
});
afterAll(async () => {
  await platform?.stop();
});

describe('the agents API', () => {
  it('creates an agent (v1, active) with its ETag, readable by id and by name', async () => {
    const created = await call('POST', '/v1/agents', A, { body: spec('You are version one.') });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'e2e-support-bot', activeVersion: 1, latestVersion: 1, builtIn: false });
    expect(created.etag).toBe(`"${created.body.revision}"`);
    agentId = created.body.id!;
    const byName = await call('GET', '/v1/agents/e2e-support-bot', A);
    expect(byName.body.id).toBe(agentId);
    expect(byName.etag).toBe(created.etag);
  });

  it('runs a message under the active version, and says so in the answer and the run', async () => {
    const turn = await send('agents-e2e-1');
    expect(turn.status).toBe(200);
    expect(turn.body.agent).toEqual({ id: agentId, version: 1 });
    const run = await call('GET', `/v1/runs/${turn.body.runId!}`, A);
    expect(run.body).toMatchObject({ agent: { id: agentId, version: 1 }, subject: `user-of-${A}` });
  });

  it('updates with If-Match; the stale ETag is then 412 and a write without one 428, changing nothing', async () => {
    const read = await call('GET', `/v1/agents/${agentId}`, A);
    const updated = await call('PUT', `/v1/agents/${agentId}`, A, {
      body: spec('You are version two.', { labels: { team: 'support' } }),
      ifMatch: read.etag!,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ activeVersion: 2, latestVersion: 2 });
    expect(updated.etag).not.toBe(read.etag);

    const stale = await call('PUT', `/v1/agents/${agentId}`, A, { body: spec('Lost update.'), ifMatch: read.etag! });
    expect(stale.status).toBe(412);
    expect(stale.body.error?.code).toBe('STALE_REVISION');
    const none = await call('PUT', `/v1/agents/${agentId}`, A, { body: spec('No precondition.') });
    expect(none.status).toBe(428);
    expect(none.body.error?.code).toBe('PRECONDITION_REQUIRED');
    const after = await call('GET', `/v1/agents/${agentId}`, A);
    expect(after.body).toMatchObject({ latestVersion: 2, spec: { instructions: 'You are version two.' } });

    const diff = await call('GET', `/v1/agents/${agentId}/versions/2/diff?against=1`, A);
    expect(diff.body.changes).toEqual(
      expect.arrayContaining([
        { path: 'instructions', op: 'replace', before: 'You are version one.', after: 'You are version two.' },
        { path: 'labels.team', op: 'replace', before: 'billing', after: 'support' },
      ]),
    );
  });

  it('answers another tenant with 404 on every agent route, exactly as a missing agent', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/v1/agents/${agentId}`],
      ['GET', '/v1/agents/e2e-support-bot'],
      ['PUT', `/v1/agents/${agentId}`, spec('Hijacked.')],
      ['DELETE', `/v1/agents/${agentId}`],
      ['GET', `/v1/agents/${agentId}/versions`],
      ['GET', `/v1/agents/${agentId}/versions/1`],
      ['GET', `/v1/agents/${agentId}/versions/2/diff?against=1`],
      ['POST', `/v1/agents/${agentId}/versions/1/publish`],
      ['POST', `/v1/agents/${agentId}/rollback`],
      ['PUT', '/v1/conversations/agents-e2e-b/agent', { agent: agentId }],
    ];
    for (const [method, path, body] of routes) {
      const answer = await call(method, path, B, { ...(body ? { body } : {}), ifMatch: '"1"' });
      expect([method, path, answer.status, answer.body.error?.code]).toEqual([method, path, 404, 'AGENT_NOT_FOUND']);
    }
    const listed = await call('GET', '/v1/agents', B);
    expect(listed.body.agents!.map((a) => a.id)).not.toContain(agentId);
    const message = await send('agents-e2e-b', B, { agent: agentId });
    expect(message.status).toBe(404);
    // Nothing changed for A.
    expect((await call('GET', `/v1/agents/${agentId}`, A)).body.activeVersion).toBe(2);
  });

  it('keeps a pinned conversation on its version while new ones follow the active one; rollback goes back', async () => {
    const pin = await call('PUT', '/v1/conversations/agents-e2e-pinned/agent', A, {
      body: { agent: agentId, version: 1 },
    });
    expect(pin.status).toBe(200);
    expect(pin.body).toMatchObject({ agentId, version: 1 });
    expect((await send('agents-e2e-pinned')).body.agent).toEqual({ id: agentId, version: 1 });
    expect((await send('agents-e2e-free')).body.agent).toEqual({ id: agentId, version: 2 });

    const rolledBack = await call('POST', `/v1/agents/${agentId}/rollback`, A);
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.activeVersion).toBe(1);
    expect((await send('agents-e2e-after-rollback')).body.agent).toEqual({ id: agentId, version: 1 });

    expect((await call('DELETE', '/v1/conversations/agents-e2e-pinned/agent', A)).status).toBe(200);
    expect((await call('GET', '/v1/conversations/agents-e2e-pinned/agent', A)).status).toBe(404);
  });

  it('refuses a message to a deleted agent with 410 AGENT_DELETED; its runs stay readable', async () => {
    const turn = await send('agents-e2e-before-delete');
    const read = await call('GET', `/v1/agents/${agentId}`, A);
    const deleted = await call('DELETE', `/v1/agents/${agentId}`, A, { ifMatch: read.etag! });
    expect(deleted.status).toBe(200);
    expect(deleted.body.deletedAt).toEqual(expect.any(String));
    // By its id it is refused as deleted; its name is free again (a new agent may take it), so by name it is not found.
    const refused = await send('agents-e2e-after-delete', A, { agent: agentId });
    expect(refused.status).toBe(410);
    expect(refused.body.error?.code).toBe('AGENT_DELETED');
    const byName = await send('agents-e2e-after-delete');
    expect(byName.status).toBe(404);
    expect(byName.body.error?.code).toBe('AGENT_NOT_FOUND');
    expect((await call('GET', `/v1/agents/${agentId}`, A)).body.deletedAt).toEqual(expect.any(String));
    expect((await call('GET', `/v1/runs/${turn.body.runId!}`, A)).status).toBe(200);
  });
});
