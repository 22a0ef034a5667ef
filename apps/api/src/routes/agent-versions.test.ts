import { beforeAll, describe, expect, it } from 'vitest';
import { useAgentEdgeApp } from '../test-support/agent-edge-app.js';
import { agentCall, specNamed } from '../test-support/agent-requests.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const edge = useAgentEdgeApp(SECRET);
let acme: string;
let bob: string;
let id: string;

/** Writes a new version of `agent` from `spec`, reading its ETag first. */
async function update(agent: string, spec: Record<string, unknown>, draft = false) {
  const read = await agentCall(edge, acme, 'GET', `/v1/agents/${agent}`);
  return agentCall(edge, acme, 'PUT', `/v1/agents/${agent}${draft ? '?draft=true' : ''}`, {
    body: spec,
    headers: { 'if-match': read.headers['etag'] as string },
  });
}

beforeAll(async () => {
  acme = await edge.bearer('acme', 'alice');
  bob = await edge.bearer('acme', 'bob');
  id = (await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('versioned-bot') })).json().id;
  // v2 by bob: another label, one tool more.
  const read = await agentCall(edge, bob, 'GET', `/v1/agents/${id}`);
  await agentCall(edge, bob, 'PUT', `/v1/agents/${id}`, {
    body: specNamed('versioned-bot', { labels: { team: 'support' }, tools: ['calculator', 'search', 'send_email'] }),
    headers: { 'if-match': read.headers['etag'] as string },
  });
});

describe('versions', () => {
  it('lists versions newest first, each with its author and whether it is active', async () => {
    const response = await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      versions: [
        { agentId: id, version: 2, createdBy: 'bob', active: true, publishedAt: expect.any(String) },
        { agentId: id, version: 1, createdBy: 'alice', active: false },
      ],
      nextPageToken: null,
    });
  });

  it('reads one version, immutable: v1 keeps its spec after v2 is written', async () => {
    const response = await agentCall(edge, acme, 'GET', '/v1/agents/versioned-bot/versions/1');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ version: 1, spec: { labels: { team: 'billing' }, tools: ['calculator'] } });
  });

  it('answers a version that does not exist with 404 AGENT_VERSION_NOT_FOUND, a malformed one with 400', async () => {
    const missing = await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions/9`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('AGENT_VERSION_NOT_FOUND');
    const malformed = await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions/zero`);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toMatchObject({ code: 'INVALID_PATH', message: expect.stringContaining('version') });
  });

  it('diffs two versions by path: from `against` to the version of the path', async () => {
    const response = await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions/2/diff?against=1`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      agentId: id,
      from: 1,
      to: 2,
      changes: [
        { path: 'labels.team', op: 'replace', before: 'billing', after: 'support' },
        { path: 'tools[1]', op: 'add', after: 'search' },
        { path: 'tools[2]', op: 'add', after: 'send_email' },
      ],
    });
    const back = (await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions/1/diff?against=2`)).json();
    expect(back.changes.at(-1)).toEqual({ path: 'tools[2]', op: 'remove', before: 'send_email' });
    const same = (await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions/2/diff?against=2`)).json();
    expect(same.changes).toEqual([]);
  });

  it('refuses a diff without `against`, or against a version that does not exist', async () => {
    const without = await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions/2/diff`);
    expect(without.statusCode).toBe(400);
    expect(without.json().error).toMatchObject({ code: 'INVALID_QUERY', message: expect.stringContaining('against') });
    const missing = await agentCall(edge, acme, 'GET', `/v1/agents/${id}/versions/2/diff?against=7`);
    expect(missing.json().error.code).toBe('AGENT_VERSION_NOT_FOUND');
  });
});

describe('publish and rollback', () => {
  it('publishes a draft (the active version and spec change, the ETag too), then rolls back to the one before', async () => {
    const agent = (await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('release-bot') })).json();
    const draft = (await update(agent.id, specNamed('release-bot', { instructions: 'Version two.' }), true)).json();
    expect(draft).toMatchObject({ activeVersion: 1, latestVersion: 2 });

    const published = await agentCall(edge, acme, 'POST', `/v1/agents/${agent.id}/versions/2/publish`, {
      headers: { 'if-match': `"${draft.revision}"` },
    });
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({ activeVersion: 2, spec: { instructions: 'Version two.' } });
    expect(published.headers['etag']).toBe(`"${draft.revision + 1}"`);

    const rolledBack = await agentCall(edge, acme, 'POST', `/v1/agents/release-bot/rollback`);
    expect(rolledBack.statusCode).toBe(200);
    expect(rolledBack.json()).toMatchObject({
      activeVersion: 1,
      latestVersion: 2,
      spec: { instructions: 'You are release-bot.' },
    });

    const nothing = await agentCall(edge, acme, 'POST', `/v1/agents/release-bot/rollback`);
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().error.code).toBe('NOTHING_TO_ROLL_BACK');
  });

  it('refuses a stale If-Match (412), a missing version (404) and a built-in agent (403)', async () => {
    const stale = await agentCall(edge, acme, 'POST', `/v1/agents/${id}/versions/1/publish`, {
      headers: { 'if-match': '"1"' },
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('STALE_REVISION');
    const rollback = await agentCall(edge, acme, 'POST', `/v1/agents/${id}/rollback`, {
      headers: { 'if-match': '"1"' },
    });
    expect(rollback.statusCode).toBe(412);
    const missing = await agentCall(edge, acme, 'POST', `/v1/agents/${id}/versions/5/publish`);
    expect(missing.json().error.code).toBe('AGENT_VERSION_NOT_FOUND');
    const builtIn = await agentCall(edge, acme, 'POST', '/v1/agents/default/rollback');
    expect(builtIn.statusCode).toBe(403);
    expect(builtIn.json().error.code).toBe('BUILT_IN_AGENT');
    // Nothing changed.
    expect((await agentCall(edge, acme, 'GET', `/v1/agents/${id}`)).json().activeVersion).toBe(2);
  });
});
