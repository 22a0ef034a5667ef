import { beforeAll, describe, expect, it } from 'vitest';
import { useAgentEdgeApp } from '../test-support/agent-edge-app.js';
import { agentCall, specNamed } from '../test-support/agent-requests.js';
import { SMALL_TIER } from '../test-support/in-memory-agents.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const edge = useAgentEdgeApp(SECRET);
let acme: string;
let globex: string;

beforeAll(async () => {
  acme = await edge.bearer('acme', 'alice');
  globex = await edge.bearer('globex', 'mallory');
});

describe('POST /v1/agents', () => {
  it('creates v1, published, with the ETag of its revision and the token user as author', async () => {
    const response = await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('create-bot') });
    expect(response.statusCode).toBe(201);
    const agent = response.json();
    expect(agent).toMatchObject({
      id: expect.stringMatching(/^agt_/),
      name: 'create-bot',
      builtIn: false,
      activeVersion: 1,
      latestVersion: 1,
      revision: 1,
      deletedAt: null,
      createdBy: 'alice',
      // Defaults filled in.
      spec: { name: 'create-bot', tools: ['calculator'], strategy: 'react', delegates: [] },
    });
    expect(response.headers['etag']).toBe('"1"');
  });

  it('keeps v1 a draft with ?draft=true: no active version', async () => {
    const response = await agentCall(edge, acme, 'POST', '/v1/agents?draft=true', { body: specNamed('draft-bot') });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ activeVersion: null, latestVersion: 1, spec: null });
  });

  it('refuses a spec that breaks the rules with 400 INVALID_AGENT_SPEC, naming every field', async () => {
    const response = await agentCall(edge, acme, 'POST', '/v1/agents', {
      body: { name: 'bad name!', instructions: '', strategy: 'plan-and-execute', colour: 'red' },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('INVALID_AGENT_SPEC');
    const fields = (error.details.issues as { field: string }[]).map((i) => i.field);
    expect(fields).toEqual(expect.arrayContaining(['name', 'instructions', '(root)']));
  });

  it('names the nested field at fault (delegates[0].fallbackRole)', async () => {
    const response = await agentCall(edge, acme, 'POST', '/v1/agents', {
      body: specNamed('loop-bot', { delegates: [{ role: 'helper', description: 'helps', fallbackRole: 'helper' }] }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.issues).toEqual([
      { field: 'delegates.0.fallbackRole', message: expect.stringContaining('must differ') },
    ]);
  });

  it("answers the agent service's refusals with their codes: name taken 409, tier 403, quota 429", async () => {
    await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('taken-bot') });
    const taken = await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('taken-bot') });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('AGENT_NAME_TAKEN');

    const small = await edge.bearer('small-co', 'sam', SMALL_TIER);
    const tier = await agentCall(edge, small, 'POST', '/v1/agents', { body: specNamed('big', { model: 'gpt-5' }) });
    expect(tier.statusCode).toBe(403);
    expect(tier.json().error).toMatchObject({ code: 'NOT_PERMITTED_BY_TIER', details: { field: 'model' } });

    expect((await agentCall(edge, small, 'POST', '/v1/agents', { body: specNamed('one') })).statusCode).toBe(201);
    const quota = await agentCall(edge, small, 'POST', '/v1/agents', { body: specNamed('two') });
    expect(quota.statusCode).toBe(429);
    expect(quota.json().error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'agents' } });
  });
});

describe('GET /v1/agents', () => {
  it("lists the tenant's agents and the built-in ones, by search and label, never another tenant's", async () => {
    await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('list-bot', { labels: { team: 'ops' } }) });
    await agentCall(edge, globex, 'POST', '/v1/agents', { body: specNamed('globex-bot') });
    const all = (await agentCall(edge, acme, 'GET', '/v1/agents')).json();
    const names = (all.agents as { name: string }[]).map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'list-bot']));
    expect(names).not.toContain('globex-bot');
    expect(all.agents.find((a: { name: string }) => a.name === 'default')).toMatchObject({
      id: 'builtin:default',
      builtIn: true,
      activeVersion: null,
    });

    const byLabel = (await agentCall(edge, acme, 'GET', '/v1/agents?label=team=ops')).json();
    expect(byLabel.agents.map((a: { name: string }) => a.name)).toEqual(['list-bot']);
    const bySearch = (await agentCall(edge, acme, 'GET', '/v1/agents?search=LIST')).json();
    expect(bySearch.agents.map((a: { name: string }) => a.name)).toEqual(['list-bot']);
    const twoLabels = (await agentCall(edge, acme, 'GET', '/v1/agents?label=team=ops&label=tier=gold')).json();
    expect(twoLabels.agents).toEqual([]);
  });

  it('pages with limit and pageToken', async () => {
    const first = (await agentCall(edge, acme, 'GET', '/v1/agents?limit=1')).json();
    expect(first.agents).toHaveLength(1);
    expect(first.nextPageToken).toEqual(expect.any(String));
    const second = (await agentCall(edge, acme, 'GET', `/v1/agents?limit=1&pageToken=${first.nextPageToken}`)).json();
    expect(second.agents[0]!.id).not.toBe(first.agents[0]!.id);
  });

  it('refuses a bad query with 400 naming the parameter', async () => {
    const response = await agentCall(edge, acme, 'GET', '/v1/agents?label=no-equals-sign');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'INVALID_QUERY', message: expect.stringContaining('label') });
    const limit = await agentCall(edge, acme, 'GET', '/v1/agents?limit=0');
    expect(limit.json().error.message).toContain('limit');
    const token = await agentCall(edge, acme, 'GET', '/v1/agents?pageToken=x');
    expect(token.json().error.code).toBe('INVALID_PAGE_TOKEN');
  });
});

describe('GET, PUT and DELETE /v1/agents/{agent}', () => {
  let id: string;
  beforeAll(async () => {
    id = (await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('crud-bot') })).json().id;
  });

  it('reads an agent by id and by name, with its ETag', async () => {
    const byId = await agentCall(edge, acme, 'GET', `/v1/agents/${id}`);
    const byName = await agentCall(edge, acme, 'GET', '/v1/agents/crud-bot');
    expect(byId.statusCode).toBe(200);
    expect(byName.json()).toEqual(byId.json());
    expect(byId.headers['etag']).toBe(`"${byId.json().revision}"`);
    expect((await agentCall(edge, acme, 'GET', '/v1/agents/builtin:default')).json().builtIn).toBe(true);
  });

  it("answers another tenant's agent with 404 AGENT_NOT_FOUND on every route, as a missing one", async () => {
    const spec = specNamed('crud-bot');
    const routes = [
      ['GET', `/v1/agents/${id}`],
      ['GET', '/v1/agents/crud-bot'],
      ['PUT', `/v1/agents/${id}`, spec, { 'if-match': '"1"' }],
      ['DELETE', `/v1/agents/${id}`],
      ['GET', `/v1/agents/${id}/versions`],
      ['GET', `/v1/agents/${id}/versions/1`],
      ['GET', `/v1/agents/${id}/versions/1/diff?against=1`],
      ['POST', `/v1/agents/${id}/versions/1/publish`],
      ['POST', `/v1/agents/${id}/rollback`],
    ] as const;
    for (const [method, url, body, headers] of routes) {
      const response = await agentCall(edge, globex, method, url, {
        ...(body ? { body } : {}),
        ...(headers ? { headers } : {}),
      });
      expect([url, method, response.statusCode, response.json().error.code]).toEqual([
        url,
        method,
        404,
        'AGENT_NOT_FOUND',
      ]);
    }
    const missing = await agentCall(edge, acme, 'GET', '/v1/agents/agt_00000000-0000-4000-8000-00000000dead');
    expect(missing.json().error.code).toBe('AGENT_NOT_FOUND');
  });

  it('refuses a malformed agent reference with 400 naming it', async () => {
    const response = await agentCall(edge, acme, 'GET', '/v1/agents/not%20a%20name');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'INVALID_PATH', message: expect.stringContaining('agent') });
  });

  it('updates with If-Match: a new version, a new ETag; the old ETag is then 412 STALE_REVISION', async () => {
    const read = await agentCall(edge, acme, 'GET', `/v1/agents/${id}`);
    const etag = read.headers['etag'] as string;
    const updated = await agentCall(edge, acme, 'PUT', `/v1/agents/${id}`, {
      body: specNamed('crud-bot', { labels: { team: 'support' } }),
      headers: { 'if-match': etag },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ activeVersion: 2, latestVersion: 2, spec: { labels: { team: 'support' } } });
    expect(updated.headers['etag']).not.toBe(etag);

    const stale = await agentCall(edge, acme, 'PUT', `/v1/agents/${id}`, {
      body: specNamed('crud-bot'),
      headers: { 'if-match': etag },
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('STALE_REVISION');
    expect((await agentCall(edge, acme, 'GET', `/v1/agents/${id}`)).json().latestVersion).toBe(2);
  });

  it('writes a draft with ?draft=true: the active version stays', async () => {
    const read = await agentCall(edge, acme, 'GET', `/v1/agents/${id}`);
    const draft = await agentCall(edge, acme, 'PUT', `/v1/agents/${id}?draft=true`, {
      body: specNamed('crud-bot', { instructions: 'Draft instructions.' }),
      headers: { 'if-match': read.headers['etag'] as string },
    });
    expect(draft.json()).toMatchObject({
      activeVersion: read.json().activeVersion,
      latestVersion: read.json().latestVersion! + 1,
    });
    expect(draft.json().spec.instructions).not.toBe('Draft instructions.');
  });

  it('requires If-Match on PUT (428), refuses one that is not an ETag (400) and a body that breaks the rules (400)', async () => {
    const none = await agentCall(edge, acme, 'PUT', `/v1/agents/${id}`, { body: specNamed('crud-bot') });
    expect(none.statusCode).toBe(428);
    expect(none.json().error).toMatchObject({ code: 'PRECONDITION_REQUIRED', details: { field: 'If-Match' } });
    for (const bad of ['*', 'W/"1"', '"1", "2"', '"0"', 'abc']) {
      const response = await agentCall(edge, acme, 'PUT', `/v1/agents/${id}`, {
        body: specNamed('crud-bot'),
        headers: { 'if-match': bad },
      });
      expect([bad, response.statusCode, response.json().error.code]).toEqual([bad, 400, 'INVALID_IF_MATCH']);
    }
    const invalid = await agentCall(edge, acme, 'PUT', `/v1/agents/${id}`, {
      body: { ...specNamed('crud-bot'), tools: 'calculator' },
      headers: { 'if-match': '"1"' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.details.issues[0]!.field).toBe('tools');
  });

  it('refuses to write a built-in agent: 403 BUILT_IN_AGENT', async () => {
    const response = await agentCall(edge, acme, 'PUT', '/v1/agents/builtin:default', {
      body: specNamed('default'),
      headers: { 'if-match': '"1"' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('BUILT_IN_AGENT');
    const deleted = await agentCall(edge, acme, 'DELETE', '/v1/agents/default');
    expect(deleted.json().error.code).toBe('BUILT_IN_AGENT');
  });

  it('deletes: 412 with a stale If-Match, then the agent with deletedAt; listed only with includeDeleted', async () => {
    const doomed = (await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('doomed-bot') })).json();
    const stale = await agentCall(edge, acme, 'DELETE', `/v1/agents/${doomed.id}`, { headers: { 'if-match': '"99"' } });
    expect(stale.statusCode).toBe(412);
    const response = await agentCall(edge, acme, 'DELETE', `/v1/agents/${doomed.id}`, {
      headers: { 'if-match': `"${doomed.revision}"` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().deletedAt).toEqual(expect.any(String));
    expect(response.headers['etag']).toBe(`"${doomed.revision + 1}"`);
    const listed = (await agentCall(edge, acme, 'GET', '/v1/agents?search=doomed')).json();
    expect(listed.agents).toEqual([]);
    const withDeleted = (await agentCall(edge, acme, 'GET', '/v1/agents?search=doomed&includeDeleted=true')).json();
    expect(withDeleted.agents).toHaveLength(1);
    // Still readable.
    expect((await agentCall(edge, acme, 'GET', `/v1/agents/${doomed.id}`)).statusCode).toBe(200);
  });
});
