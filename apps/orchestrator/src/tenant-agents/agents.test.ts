// Tenant agents through the real orchestrator (issue 36): two orchestrator processes (replicas)
// on one Postgres, NATS and Redis, with llm-sim as the model, memory, the agent pool and a tool
// runner; every call goes through the AgentService and OrchestratorService gRPC servers as the api.
import { randomUUID } from 'node:crypto';
import { agentsV1, orchestratorV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import { startNatsServer, startPlatform, type NatsServerHandle, type Platform } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleMessageRequest } from '../test-support/handle-message-request.js';

const TIERS = {
  small: { agents: 2, agentVersions: 3, agentModels: ['sim-*'], agentTools: ['calc*', 'current_time'] },
};

let nats: NatsServerHandle;
let platform: Platform;
let llmSim: string;
/** One AgentService and one OrchestratorService client per replica. */
const agentClients: GrpcClientHandle<agentsV1.AgentServiceClient>[] = [];
const orchestrators: GrpcClientHandle<orchestratorV1.OrchestratorServiceClient>[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  platform = await startPlatform({
    natsUrl: nats.url,
    databaseUrl: await createSuiteDatabase('tenant_agents'),
    redisUrl: await allocateSuiteRedis(),
    jwtSecret: 'tenant-agents-secret-tenant-agents-secret',
    apps: ['llm-sim', 'memory', 'tool-runner', 'agent-pool', 'orchestrator'],
    orchestratorReplicas: 2,
    mode: 'source',
    readyTimeoutMs: 90_000,
    env: { orchestrator: { TENANT_TIERS: JSON.stringify(TIERS), RATE_LIMIT_TURNS_PER_MINUTE: '0' } },
  });
  llmSim = platform.llmSimUrl!;
  for (const port of platform.orchestratorPorts) {
    const transport = new MutualTlsTransport(await platform.pki.issue('api'));
    const options = { defaultDeadlineMs: 30_000, transport, server: 'orchestrator' };
    agentClients.push(
      createGrpcClient(agentsV1.AgentServiceClient, agentsV1.AgentServiceService, `127.0.0.1:${port}`, options),
    );
    orchestrators.push(
      createGrpcClient(
        orchestratorV1.OrchestratorServiceClient,
        orchestratorV1.OrchestratorServiceService,
        `127.0.0.1:${port}`,
        options,
      ),
    );
  }
}, 240_000);

afterAll(async () => {
  for (const client of [...agentClients, ...orchestrators]) client.close();
  await platform?.stop();
  await nats?.stop();
});

const agents = (replica = 0) => agentClients[replica]!.rpc;
const caller = (tenantId: string, tier = '') => ({ tenantId, subject: 'user-1', tier });

/** A spec whose instructions say which version it is (the model sees them as its system prompt). */
function spec(name: string, marker: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ name, instructions: `You are ${name}. VERSION-MARKER ${marker}.`, ...extra });
}

async function create(tenantId: string, name: string, marker = 'v1', extra: Record<string, unknown> = {}) {
  const { agent } = await agents().createAgent({
    caller: caller(tenantId),
    specJson: spec(name, marker, extra),
    draft: false,
  });
  return agent!;
}

async function update(tenantId: string, ref: string, ifMatch: number, marker: string, draft = false) {
  const { agent } = await agents().updateAgent({
    caller: caller(tenantId),
    agent: ref,
    specJson: spec(ref.startsWith('agt_') ? (await get(tenantId, ref)).name : ref, marker),
    ifMatch,
    draft,
  });
  return agent!;
}

async function get(tenantId: string, ref: string) {
  return (await agents().getAgent({ caller: caller(tenantId), agent: ref })).agent!;
}

async function failure(promise: Promise<unknown>): Promise<{ kind: string; code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { kind: string; code: string; message: string };
  }
  throw new Error('expected the call to fail');
}

/** A message as the api sends it; answers the turn. */
function message(
  tenantId: string,
  conversationId: string,
  content: string,
  more: Partial<orchestratorV1.HandleMessageRequest> = {},
  replica = 0,
) {
  return orchestrators[replica]!.rpc.handleMessage(
    handleMessageRequest({
      tenantId,
      conversationId,
      content,
      agentVersion: 0,
      overridesJson: '',
      outputSchemaJson: '',
      ...more,
    }),
    { deadlineMs: 60_000 },
  );
}

interface SimRequest {
  structuredReply: string | null;
  body: {
    messages: { role: string; content: string | null }[];
    temperature?: number;
    top_p?: number;
    max_completion_tokens?: number;
  };
  status: number | null;
}

/** The model calls of turns whose user message holds `tag`. */
async function turnRequestsFor(tag: string): Promise<SimRequest[]> {
  const response = await fetch(`${llmSim}/_sim/requests`);
  const { requests } = (await response.json()) as { requests: SimRequest[] };
  // The chat completions of turns, not memory's extraction of them (which quotes the conversation).
  return requests
    .filter((r) => r.structuredReply === null)
    .filter((r) => r.body.messages.some((m) => m.role === 'user' && (m.content ?? '').includes(tag)));
}

/** The system prompts of the model calls whose user message holds `tag`. */
async function systemPromptsFor(tag: string): Promise<string[]> {
  return (await turnRequestsFor(tag)).map((r) => r.body.messages.find((m) => m.role === 'system')?.content ?? '');
}

describe('agents: create, read, update, delete', () => {
  it('creates v1, reads it by id and by name, lists it beside the built-in agents', async () => {
    const tenant = `crud-${randomUUID().slice(0, 8)}`;
    const agent = await create(tenant, 'support-bot', 'v1', { labels: { team: 'care' }, description: 'Helps' });
    expect(agent).toMatchObject({
      name: 'support-bot',
      builtIn: false,
      activeVersion: 1,
      latestVersion: 1,
      revision: 1,
    });
    expect(agent.agentId).toMatch(/^agt_[0-9a-f-]{36}$/);
    expect(agent.createdBy).toBe('user-1');
    expect(await get(tenant, agent.agentId)).toMatchObject({ agentId: agent.agentId, name: 'support-bot' });
    expect(await get(tenant, 'support-bot')).toMatchObject({ agentId: agent.agentId });
    expect(JSON.parse((await get(tenant, 'support-bot')).specJson)).toMatchObject({ labels: { team: 'care' } });

    const listed = await agents().listAgents({
      caller: caller(tenant),
      pageSize: 0,
      pageToken: '',
      search: '',
      labels: [],
      includeDeleted: false,
    });
    expect(listed.agents.map((a) => [a.name, a.builtIn])).toEqual([
      ['default', true],
      ['support-bot', false],
    ]);
    const byLabel = await agents().listAgents({
      caller: caller(tenant),
      pageSize: 0,
      pageToken: '',
      search: '',
      labels: ['team=care'],
      includeDeleted: false,
    });
    expect(byLabel.agents.map((a) => a.name)).toEqual(['support-bot']);
    const bySearch = await agents().listAgents({
      caller: caller(tenant),
      pageSize: 1,
      pageToken: '',
      search: 'SUPPORT',
      labels: [],
      includeDeleted: false,
    });
    expect(bySearch.agents.map((a) => a.name)).toEqual(['support-bot']);
    expect(bySearch.nextPageToken).toBe('');
  });

  it('pages through the agents by name, a deleted one beside a live one of the same name included', async () => {
    const tenant = `paging-${randomUUID().slice(0, 8)}`;
    for (const name of ['a-one', 'b-two', 'c-three']) await create(tenant, name);
    await agents().deleteAgent({ caller: caller(tenant), agent: 'b-two', ifMatch: 0 });
    await create(tenant, 'b-two');
    const listAll = async (pageSize: number, includeDeleted: boolean) => {
      const ids: string[] = [];
      const names: string[] = [];
      let pageToken = '';
      do {
        const page = await agents().listAgents({
          caller: caller(tenant),
          pageSize,
          pageToken,
          search: '',
          labels: [],
          includeDeleted,
        });
        expect(page.agents.length).toBeLessThanOrEqual(pageSize);
        ids.push(...page.agents.map((a) => a.agentId));
        names.push(...page.agents.map((a) => a.name));
        pageToken = page.nextPageToken;
      } while (pageToken);
      expect(new Set(ids).size).toBe(ids.length);
      return names;
    };
    for (const size of [1, 2, 50]) {
      expect(await listAll(size, false)).toEqual(['a-one', 'b-two', 'c-three', 'default']);
      expect(await listAll(size, true)).toEqual(['a-one', 'b-two', 'b-two', 'c-three', 'default']);
    }
  });

  it('writes every update as a new immutable version, newest first', async () => {
    const tenant = `versions-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'writer');
    const v2 = await update(tenant, 'writer', v1.revision, 'v2');
    expect(v2).toMatchObject({ activeVersion: 2, latestVersion: 2, revision: v1.revision + 1 });
    const { versions } = await agents().listAgentVersions({
      caller: caller(tenant),
      agent: 'writer',
      pageSize: 0,
      pageToken: '',
    });
    expect(versions.map((v) => [v.version, v.active])).toEqual([
      [2, true],
      [1, false],
    ]);
    const { version } = await agents().getAgentVersion({ caller: caller(tenant), agent: v1.agentId, version: 1 });
    expect((JSON.parse(version!.specJson) as { instructions: string }).instructions).toContain('VERSION-MARKER v1.');
    expect(version!.publishedAt).toBeInstanceOf(Date);
    expect(
      await failure(agents().getAgentVersion({ caller: caller(tenant), agent: 'writer', version: 3 })),
    ).toMatchObject({ kind: 'not_found', code: 'AGENT_VERSION_NOT_FOUND' });
  });

  it('deletes an agent: its name is gone, its id still reads with deletedAt, it takes no writes', async () => {
    const tenant = `delete-${randomUUID().slice(0, 8)}`;
    const agent = await create(tenant, 'doomed');
    const { agent: deleted } = await agents().deleteAgent({ caller: caller(tenant), agent: 'doomed', ifMatch: 0 });
    expect(deleted!.deletedAt).toBeInstanceOf(Date);
    expect(await failure(agents().getAgent({ caller: caller(tenant), agent: 'doomed' }))).toMatchObject({
      kind: 'not_found',
      code: 'AGENT_NOT_FOUND',
    });
    expect((await get(tenant, agent.agentId)).deletedAt).toBeInstanceOf(Date);
    expect(
      await failure(
        agents().updateAgent({
          caller: caller(tenant),
          agent: agent.agentId,
          specJson: spec('doomed', 'v2'),
          ifMatch: deleted!.revision,
          draft: false,
        }),
      ),
    ).toMatchObject({ kind: 'failed_precondition', code: 'AGENT_DELETED' });
    // The name is free again.
    expect((await create(tenant, 'doomed')).agentId).not.toBe(agent.agentId);
  });

  it('refuses bad specs naming the field, and built-in agents as read-only', async () => {
    const tenant = `bad-${randomUUID().slice(0, 8)}`;
    const bad = await failure(
      agents().createAgent({
        caller: caller(tenant),
        specJson: JSON.stringify({ name: 'x', instructions: '', tools: 'all' }),
        draft: false,
      }),
    );
    expect(bad).toMatchObject({ kind: 'invalid_argument', code: 'INVALID_AGENT_SPEC' });
    expect(bad.message).toMatch(/^INVALID_AGENT_SPEC: .*instructions.*tools/);
    expect(
      await failure(agents().createAgent({ caller: caller(tenant), specJson: '{not json', draft: false })),
    ).toMatchObject({ code: 'INVALID_AGENT_SPEC' });
    const nul = await failure(
      agents().createAgent({ caller: caller(tenant), specJson: spec('nul', 'v1\u0000'), draft: false }),
    );
    expect(nul).toMatchObject({ code: 'INVALID_AGENT_SPEC' });
    expect(nul.message).toContain('instructions');
    const role = await failure(
      agents().createAgent({
        caller: caller(tenant),
        specJson: spec('lead', 'v1', { delegates: [{ role: 'nobody', description: 'does nothing' }] }),
        draft: false,
      }),
    );
    expect(role).toMatchObject({ code: 'INVALID_AGENT_SPEC' });
    expect(role.message).toContain('delegates.0.role');
    expect(await failure(create(tenant, 'default'))).toMatchObject({
      kind: 'already_exists',
      code: 'AGENT_NAME_TAKEN',
    });
    await create(tenant, 'taken');
    expect(await failure(create(tenant, 'taken'))).toMatchObject({ code: 'AGENT_NAME_TAKEN' });
    const builtIn = await get(tenant, 'builtin:default');
    expect(builtIn).toMatchObject({ name: 'default', builtIn: true, activeVersion: 0 });
    for (const ref of ['default', 'builtin:default'])
      expect(
        await failure(
          agents().updateAgent({
            caller: caller(tenant),
            agent: ref,
            specJson: spec('default', 'x'),
            ifMatch: 1,
            draft: false,
          }),
        ),
      ).toMatchObject({ kind: 'permission_denied', code: 'BUILT_IN_AGENT' });
    expect(
      await failure(agents().deleteAgent({ caller: caller(tenant), agent: 'builtin:default', ifMatch: 0 })),
    ).toMatchObject({ code: 'BUILT_IN_AGENT' });
    expect(await failure(create(tenant, 'byom', 'v1', { modelConnection: 'mine' }))).toMatchObject({
      kind: 'permission_denied',
      code: 'NOT_PERMITTED_BY_TIER',
      message: 'NOT_PERMITTED_BY_TIER: model connections are not enabled',
    });
  });
});

describe('publish, rollback and If-Match', () => {
  it('publishes a draft, rolls back publication by publication, then has nothing to roll back', async () => {
    const tenant = `publish-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'flip');
    const v2 = await update(tenant, 'flip', v1.revision, 'v2');
    const draft = await update(tenant, 'flip', v2.revision, 'v3', true);
    expect(draft).toMatchObject({ activeVersion: 2, latestVersion: 3 });
    const rolled = (await agents().rollbackAgent({ caller: caller(tenant), agent: 'flip', ifMatch: 0 })).agent!;
    expect(rolled.activeVersion).toBe(1);
    const published = (
      await agents().publishAgentVersion({
        caller: caller(tenant),
        agent: 'flip',
        version: 3,
        ifMatch: rolled.revision,
      })
    ).agent!;
    expect(published.activeVersion).toBe(3);
    expect((JSON.parse(published.specJson) as { instructions: string }).instructions).toContain('v3');
    expect(
      (await agents().rollbackAgent({ caller: caller(tenant), agent: 'flip', ifMatch: 0 })).agent!.activeVersion,
    ).toBe(1);
    expect(await failure(agents().rollbackAgent({ caller: caller(tenant), agent: 'flip', ifMatch: 0 }))).toMatchObject({
      kind: 'failed_precondition',
      code: 'NOTHING_TO_ROLL_BACK',
    });
    expect(
      await failure(agents().publishAgentVersion({ caller: caller(tenant), agent: 'flip', version: 9, ifMatch: 0 })),
    ).toMatchObject({ code: 'AGENT_VERSION_NOT_FOUND' });
  });

  it('lets exactly one of two writers of the same revision win; the other gets STALE_REVISION', async () => {
    const tenant = `race-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'contested');
    const outcomes = await Promise.allSettled(
      [0, 1].map((i) =>
        agents(i).updateAgent({
          caller: caller(tenant),
          agent: 'contested',
          specJson: spec('contested', `writer-${i}`),
          ifMatch: v1.revision,
          draft: false,
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ kind: 'failed_precondition', code: 'STALE_REVISION' });
    expect((lost.reason as Error).message).toMatch(/^STALE_REVISION: /);
    expect((await get(tenant, 'contested')).latestVersion).toBe(2);
    expect(
      await failure(
        agents().updateAgent({
          caller: caller(tenant),
          agent: 'contested',
          specJson: spec('contested', 'x'),
          ifMatch: 0,
          draft: false,
        }),
      ),
    ).toMatchObject({ kind: 'failed_precondition', code: 'PRECONDITION_REQUIRED' });
  });
});

describe('tenancy', () => {
  it("answers another tenant's agent as NOT_FOUND on every rpc", async () => {
    const owner = `owner-${randomUUID().slice(0, 8)}`;
    const other = `other-${randomUUID().slice(0, 8)}`;
    const agent = await create(owner, 'private-bot');
    await agents().pinConversation({
      caller: caller(owner),
      conversationId: 'owned-conv',
      agent: 'private-bot',
      version: 1,
    });
    const them = caller(other);
    for (const ref of [agent.agentId, 'private-bot']) {
      const calls: (() => Promise<unknown>)[] = [
        () => agents().getAgent({ caller: them, agent: ref }),
        () =>
          agents().updateAgent({
            caller: them,
            agent: ref,
            specJson: spec('private-bot', 'x'),
            ifMatch: 1,
            draft: false,
          }),
        () => agents().deleteAgent({ caller: them, agent: ref, ifMatch: 0 }),
        () => agents().listAgentVersions({ caller: them, agent: ref, pageSize: 0, pageToken: '' }),
        () => agents().getAgentVersion({ caller: them, agent: ref, version: 1 }),
        () => agents().publishAgentVersion({ caller: them, agent: ref, version: 1, ifMatch: 0 }),
        () => agents().rollbackAgent({ caller: them, agent: ref, ifMatch: 0 }),
        () => agents().pinConversation({ caller: them, conversationId: 'their-conv', agent: ref, version: 0 }),
      ];
      for (const call of calls)
        expect(await failure(call()), ref).toMatchObject({ kind: 'not_found', code: 'AGENT_NOT_FOUND' });
      expect(await failure(message(other, 'their-conv-2', 'hello', { profile: ref })), ref).toMatchObject({
        kind: 'not_found',
      });
    }
    expect(await failure(agents().getConversationPin({ caller: them, conversationId: 'owned-conv' }))).toMatchObject({
      kind: 'not_found',
    });
    const listed = await agents().listAgents({
      caller: them,
      pageSize: 0,
      pageToken: '',
      search: '',
      labels: [],
      includeDeleted: true,
    });
    expect(listed.agents.map((a) => a.name)).toEqual(['default']);
    // Unchanged by all of that.
    expect(await get(owner, agent.agentId)).toMatchObject({ revision: agent.revision, deletedAt: undefined });
  });
});

describe('tier limits and quotas at write', () => {
  const small = (tenantId: string) => ({ tenantId, subject: 'u', tier: 'small' });

  it('refuses models and tool patterns the tier does not permit, naming them', async () => {
    const tenant = `tier-${randomUUID().slice(0, 8)}`;
    const model = await failure(
      agents().createAgent({
        caller: small(tenant),
        specJson: spec('m', 'v1', { model: 'gpt-huge', tools: ['calculator'] }),
        draft: false,
      }),
    );
    expect(model).toMatchObject({ kind: 'permission_denied', code: 'NOT_PERMITTED_BY_TIER' });
    expect(model.message).toContain("'gpt-huge'");
    const tools = await failure(
      agents().createAgent({ caller: small(tenant), specJson: spec('t', 'v1', { model: 'sim-1' }), draft: false }),
    );
    expect(tools).toMatchObject({ code: 'NOT_PERMITTED_BY_TIER' });
    expect(tools.message).toContain("'*'");
    // Within the tier: accepted.
    await agents().createAgent({
      caller: small(tenant),
      specJson: spec('ok', 'v1', { model: 'sim-1', tools: ['calculator'] }),
      draft: false,
    });
  });

  it('refuses an agent past the agents quota and a version past the versions quota', async () => {
    const tenant = `quota-${randomUUID().slice(0, 8)}`;
    const within = (name: string) => spec(name, 'v1', { model: 'sim-1', tools: ['calculator'] });
    const first = (await agents().createAgent({ caller: small(tenant), specJson: within('q1'), draft: false })).agent!;
    await agents().createAgent({ caller: small(tenant), specJson: within('q2'), draft: false });
    const third = await failure(agents().createAgent({ caller: small(tenant), specJson: within('q3'), draft: false }));
    expect(third).toMatchObject({ kind: 'resource_exhausted', code: 'QUOTA_EXCEEDED' });
    expect((third as unknown as { details: unknown }).details).toMatchObject({
      quota: 'agents',
      limit: 2,
      tier: 'small',
    });
    let revision = first.revision;
    for (let i = 2; i <= 3; i++)
      revision = (
        await agents().updateAgent({
          caller: small(tenant),
          agent: 'q1',
          specJson: within('q1'),
          ifMatch: revision,
          draft: true,
        })
      ).agent!.revision;
    const fourth = await failure(
      agents().updateAgent({
        caller: small(tenant),
        agent: 'q1',
        specJson: within('q1'),
        ifMatch: revision,
        draft: true,
      }),
    );
    expect(fourth).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect((fourth as unknown as { details: unknown }).details).toMatchObject({ quota: 'agent_versions', limit: 3 });
  });
});

describe('agents at message time', () => {
  it('runs a message under the active version, recorded on the run, then the next one under a new version', async () => {
    const tenant = `msg-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'helper');
    const first = await message(tenant, 'c-active', '[scenario:plain] first tag-a1', { profile: 'helper' });
    expect(first).toMatchObject({ status: 'completed', agentId: v1.agentId, agentVersion: 1 });
    expect(await systemPromptsFor('tag-a1')).toEqual([expect.stringContaining('VERSION-MARKER v1.')]);
    const run = await orchestrators[0]!.rpc.getRun({ tenantId: tenant, runId: first.runId });
    expect(run).toMatchObject({ agentId: v1.agentId, agentVersion: 1, subject: 'user-1', profile: 'helper' });
    await update(tenant, 'helper', v1.revision, 'v2');
    const second = await message(tenant, 'c-active', '[scenario:plain] second tag-a2', { profile: v1.agentId });
    expect(second.agentVersion).toBe(2);
    expect(await systemPromptsFor('tag-a2')).toEqual([expect.stringContaining('VERSION-MARKER v2.')]);
    // A built-in profile works as before, recorded as its built-in agent.
    const builtIn = await message(tenant, 'c-builtin', '[scenario:plain] built-in tag-a3');
    expect(builtIn).toMatchObject({ status: 'completed', agentId: 'builtin:default', agentVersion: 0 });
    expect(await failure(message(tenant, 'c-none', 'x', { profile: 'nobody' }))).toMatchObject({
      kind: 'not_found',
      code: 'PROFILE_NOT_FOUND',
    });
  });

  it("sends the agent's model parameters with its model calls, and none for an agent without them", async () => {
    const tenant = `sampling-${randomUUID().slice(0, 8)}`;
    await create(tenant, 'precise', 'v1', { modelParameters: { temperature: 0.2, topP: 0.9, maxOutputTokens: 300 } });
    await create(tenant, 'plain', 'v1');
    expect(await message(tenant, 'c-sampling', '[scenario:plain] tag-s1', { profile: 'precise' })).toMatchObject({
      status: 'completed',
    });
    expect(await message(tenant, 'c-sampling-2', '[scenario:plain] tag-s2', { profile: 'plain' })).toMatchObject({
      status: 'completed',
    });
    const [precise] = await turnRequestsFor('tag-s1');
    expect(precise?.body).toMatchObject({ temperature: 0.2, top_p: 0.9, max_completion_tokens: 300 });
    const [plain] = await turnRequestsFor('tag-s2');
    expect(plain?.body).not.toHaveProperty('temperature');
    expect(plain?.body).not.toHaveProperty('top_p');
    expect(plain?.body).not.toHaveProperty('max_completion_tokens');
  });

  it('keeps a run in flight on v1 while v2 is published', async () => {
    const tenant = `inflight-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'slow');
    // Every model call takes a while: v2 is published between the run's two model calls.
    await fetch(`${llmSim}/_sim/latency`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ delayMs: 1_500 }),
    });
    try {
      const inFlight = message(tenant, 'c-flight', '[scenario:calculator] tag-f1', { profile: 'slow' });
      await expect.poll(() => systemPromptsFor('tag-f1'), { timeout: 30_000 }).toHaveLength(1);
      await update(tenant, 'slow', v1.revision, 'v2');
      const answered = await inFlight;
      expect(answered).toMatchObject({ status: 'completed', agentVersion: 1 });
      const prompts = await systemPromptsFor('tag-f1');
      expect(prompts).toHaveLength(2);
      for (const prompt of prompts) expect(prompt).toContain('VERSION-MARKER v1.');
    } finally {
      await fetch(`${llmSim}/_sim/latency`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({}),
      });
    }
    const next = await message(tenant, 'c-flight', '[scenario:plain] tag-f2', { profile: 'slow' });
    expect(next.agentVersion).toBe(2);
    expect(await systemPromptsFor('tag-f2')).toEqual([expect.stringContaining('VERSION-MARKER v2.')]);
  });

  it('keeps a pinned conversation on its version, whatever the message names, until unpinned', async () => {
    const tenant = `pin-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'pinned');
    const { pin } = await agents().pinConversation({
      caller: caller(tenant),
      conversationId: 'c-pin',
      agent: 'pinned',
      version: 1,
    });
    expect(pin).toMatchObject({ agentId: v1.agentId, version: 1, pinnedBy: 'user-1' });
    await update(tenant, 'pinned', v1.revision, 'v2');
    const pinned = await message(tenant, 'c-pin', '[scenario:plain] tag-p1', { profile: 'default' });
    expect(pinned).toMatchObject({ agentId: v1.agentId, agentVersion: 1 });
    const elsewhere = await message(tenant, 'c-unpinned', '[scenario:plain] tag-p2', { profile: 'pinned' });
    expect(elsewhere.agentVersion).toBe(2);
    await agents().unpinConversation({ caller: caller(tenant), conversationId: 'c-pin' });
    expect(
      await failure(agents().getConversationPin({ caller: caller(tenant), conversationId: 'c-pin' })),
    ).toMatchObject({
      code: 'CONVERSATION_NOT_PINNED',
    });
    const after = await message(tenant, 'c-pin', '[scenario:plain] tag-p3', { profile: 'pinned' });
    expect(after.agentVersion).toBe(2);
  });

  it('tries a draft by its version without publishing it', async () => {
    const tenant = `draft-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'drafty');
    await update(tenant, 'drafty', v1.revision, 'v2-draft', true);
    const tried = await message(tenant, 'c-draft', '[scenario:plain] tag-d1', { profile: 'drafty', agentVersion: 2 });
    expect(tried.agentVersion).toBe(2);
    expect(await systemPromptsFor('tag-d1')).toEqual([expect.stringContaining('VERSION-MARKER v2-draft.')]);
    const active = await message(tenant, 'c-draft', '[scenario:plain] tag-d2', { profile: 'drafty' });
    expect(active.agentVersion).toBe(1);
    expect(await failure(message(tenant, 'c-draft', 'x', { profile: 'drafty', agentVersion: 7 }))).toMatchObject({
      kind: 'not_found',
      code: 'AGENT_VERSION_NOT_FOUND',
    });
    // An agent with only a draft answers only messages naming the version.
    const { agent: onlyDraft } = await agents().createAgent({
      caller: caller(tenant),
      specJson: spec('unpublished', 'd'),
      draft: true,
    });
    expect(onlyDraft!.activeVersion).toBe(0);
    expect(await failure(message(tenant, 'c-draft2', 'x', { profile: 'unpublished' }))).toMatchObject({
      code: 'AGENT_VERSION_NOT_FOUND',
    });
  });

  it('refuses a deleted agent with AGENT_DELETED', async () => {
    const tenant = `gone-${randomUUID().slice(0, 8)}`;
    const agent = await create(tenant, 'gone');
    await message(tenant, 'c-gone', '[scenario:plain] before', { profile: 'gone' });
    await agents().deleteAgent({ caller: caller(tenant), agent: 'gone', ifMatch: 0 });
    expect(await failure(message(tenant, 'c-gone', 'after', { profile: agent.agentId }))).toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_DELETED',
    });
  });

  it('applies overrides the agent allows and refuses the rest, naming what', async () => {
    const tenant = `over-${randomUUID().slice(0, 8)}`;
    await create(tenant, 'strict', 'v1', {
      model: 'sim-1',
      loop: { maxTurns: 3 },
      overrides: { models: [], instructions: true },
    });
    const overrides = { instructions: 'Answer in French. OVERRIDE-MARKER', maxTurns: 2, tools: ['calculator'] };
    const applied = await message(tenant, 'c-over', '[scenario:plain] tag-o1', {
      profile: 'strict',
      overridesJson: JSON.stringify(overrides),
    });
    expect(applied.status).toBe('completed');
    const [prompt] = await systemPromptsFor('tag-o1');
    expect(prompt).toContain('VERSION-MARKER v1.');
    expect(prompt).toContain('OVERRIDE-MARKER');
    const run = await orchestrators[0]!.rpc.getRun({ tenantId: tenant, runId: applied.runId });
    expect(JSON.parse(run.overridesJson ?? '')).toEqual(overrides);

    const refused = async (value: unknown) =>
      failure(message(tenant, 'c-over', 'x', { profile: 'strict', overridesJson: JSON.stringify(value) }));
    expect(await refused({ model: 'sim-other' })).toMatchObject({
      kind: 'invalid_argument',
      code: 'OVERRIDE_NOT_ALLOWED',
      message: expect.stringContaining('overrides.model'),
    });
    expect((await refused({ maxTurns: 4 })).message).toContain('overrides.maxTurns');
    expect((await refused({ temperature: 1 })).code).toBe('OVERRIDE_NOT_ALLOWED');
    expect((await refused({ instructions: 'a\u0000b' })).message).toContain('overrides.instructions');
    await create(tenant, 'closed', 'v1', { overrides: { instructions: false } });
    expect(
      (await failure(message(tenant, 'c-closed', 'x', { profile: 'closed', overridesJson: '{"instructions":"more"}' })))
        .message,
    ).toContain('overrides.instructions');
  });

  it('shows a new version to both replicas', async () => {
    const tenant = `replicas-${randomUUID().slice(0, 8)}`;
    const v1 = await create(tenant, 'shared');
    // Both replicas have the agent cached at v1.
    for (const replica of [0, 1])
      expect(
        (await message(tenant, `c-r${replica}`, '[scenario:plain] warm', { profile: 'shared' }, replica)).agentVersion,
      ).toBe(1);
    await update(tenant, 'shared', v1.revision, 'v2');
    const publishedAt = Date.now();
    // Both replicas polled at once; each records when it sent the first message answered under v2
    // (an upper bound on when it saw the version: the turn's own time is not counted).
    const seen = await Promise.all(
      [0, 1].map(async (replica) => {
        let sentAt = 0;
        await expect
          .poll(
            async () => {
              sentAt = Date.now() - publishedAt;
              return (await message(tenant, `c-r${replica}`, '[scenario:plain] poll', { profile: 'shared' }, replica))
                .agentVersion;
            },
            { timeout: 10_000, interval: 50 },
          )
          .toBe(2);
        return sentAt;
      }),
    );
    process.stdout.write(
      `replica 0 ran v2 for a message sent ${seen[0]} ms after the publication, replica 1 for one sent after ${seen[1]} ms\n`,
    );
  });
});
