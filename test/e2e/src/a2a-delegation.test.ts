// A2A delegation through the real services: a tenant stores a credential and registers a remote
// A2A agent by its card (fetched and validated by @a2a-js/sdk), names it as the role of its
// plan-and-execute agent, and a plan subtask under that role is sent to the remote agent with the
// A2A client, followed to its answer and passed on to the next subtask. The remote agent here is
// served by @a2a-js/sdk's own server classes on loopback (which the operator's egress allowlist
// admits). A URL that points inside is refused; another tenant sees none of it; an orchestrator
// SIGKILLed while a remote task works resumes following the same task; a subtask's deadline
// cancels the remote task with tasks/cancel.
import { startA2aTestAgent, type A2aTestAgent } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, FAST_RECOVERY, tokenFor, waitFor, type SuitePlatform } from './support.js';

const TENANT = { tenant: 'a2a-tenant', roles: ['admin'] };
const OTHER = { tenant: 'a2a-other', roles: ['admin'] };
let platform: SuitePlatform;
let remote: A2aTestAgent;

interface RemoteAgentJson {
  name: string;
  url: string;
  auth: { credentialService: string; credentialAccount?: string } | null;
  card: { name: string; skills: Array<{ id: string; name: string }>; transport: string; protocolVersion: string };
  version: number;
}

interface RunJson {
  runId: string;
  status: string;
  stopReason: string | null;
  response: string;
  plan?: {
    status: string;
    subtasks: Array<{ id: string; status: string; childRunIds: string[]; error?: string }>;
    context: Record<string, string>;
  };
  children: Array<{ runId: string; role: string; status: string }>;
}

const planner = (name: string, forecaster: Record<string, unknown> = {}, planning: Record<string, unknown> = {}) => ({
  name,
  instructions: 'You plan work for a small team. [persona-scenario:plan-remote]',
  strategy: 'plan-and-execute',
  planning: { executor: 'writer', ...planning },
  delegates: [
    {
      role: 'forecaster',
      description: 'forecasts the weather (a partner agent).',
      remoteAgent: 'forecaster',
      ...forecaster,
    },
    { role: 'writer', description: 'writes summaries.' },
  ],
  tools: [],
});

beforeAll(async () => {
  remote = await startA2aTestAgent({ name: 'Partner forecaster' });
  platform = await bootPlatform('a2a_delegation', {
    env: {
      // The remote agent listens on loopback: the operator admits exactly that address.
      orchestrator: { EGRESS_ALLOW_CIDRS: '127.0.0.1/32', REMOTE_AGENT_POLL_MS: '100', ...FAST_RECOVERY },
    },
  });
  const stored = await api(platform, 'PUT', '/v1/credentials/partner-agents/primary', TENANT, {
    secret: { access_token: 'partner-token-0123456789' },
  });
  expect(stored.status).toBe(200);
  const writer = await api(platform, 'POST', '/v1/agents', TENANT, {
    name: 'writer',
    instructions: 'You write one-sentence summaries.',
    tools: [],
  });
  expect(writer.status).toBe(201);
}, 180_000);
afterAll(async () => {
  await platform?.stop();
  await remote?.stop();
});

describe('A2A delegation to a remote agent', () => {
  it('registers a remote agent by its card, showing its name and skills; refuses a URL that points inside', async () => {
    const created = await api<{ remoteAgent: RemoteAgentJson }>(platform, 'POST', '/v1/remote-agents', TENANT, {
      name: 'forecaster',
      url: remote.cardUrl,
      description: 'Our partner',
      auth: { credentialService: 'partner-agents' },
    });
    expect(created.status).toBe(201);
    expect(created.body.remoteAgent).toMatchObject({
      name: 'forecaster',
      url: remote.cardUrl,
      auth: { credentialService: 'partner-agents' },
      card: { name: 'Partner forecaster', skills: [{ id: 'forecast', name: 'Forecast' }], transport: 'JSONRPC' },
      version: 1,
    });
    const listed = await api<{ remoteAgents: RemoteAgentJson[] }>(platform, 'GET', '/v1/remote-agents', TENANT);
    expect(listed.body.remoteAgents.map((a) => a.name)).toEqual(['forecaster']);

    const port = new URL(remote.cardUrl).port;
    for (const url of [
      `http://localhost:${port}/.well-known/agent-card.json`,
      'http://10.20.30.40/',
      'http://169.254.169.254/',
    ]) {
      const refused = await api<{ error: { code: string; details?: { reason?: string } } }>(
        platform,
        'POST',
        '/v1/remote-agents',
        TENANT,
        { name: 'inside', url },
      );
      expect(refused.status, url).toBe(400);
      expect(refused.body.error.code).toBe('EGRESS_REFUSED');
    }
    const notACard = await api<{ error: { code: string } }>(platform, 'POST', '/v1/remote-agents', TENANT, {
      name: 'nocard',
      url: remote.cardUrl.replace('agent-card.json', 'nothing.json'),
    });
    expect([notACard.status, notACard.body.error.code]).toEqual([422, 'REMOTE_AGENT_CARD_UNREADABLE']);
    const taken = await api<{ error: { code: string } }>(platform, 'POST', '/v1/remote-agents', TENANT, {
      name: 'forecaster',
      url: remote.cardUrl,
    });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'REMOTE_AGENT_EXISTS']);
    const bad = await api<{ error: { code: string } }>(platform, 'POST', '/v1/remote-agents', TENANT, {
      name: 'no spaces',
      url: remote.cardUrl,
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_REMOTE_AGENT']);
  });

  it('another tenant sees none of it and cannot name it in its agents', async () => {
    const got = await api<{ error: { code: string } }>(platform, 'GET', '/v1/remote-agents/forecaster', OTHER);
    expect([got.status, got.body.error.code]).toEqual([404, 'REMOTE_AGENT_NOT_FOUND']);
    expect(
      (await api<{ remoteAgents: unknown[] }>(platform, 'GET', '/v1/remote-agents', OTHER)).body.remoteAgents,
    ).toEqual([]);
    const deleted = await api<{ error: { code: string } }>(platform, 'DELETE', '/v1/remote-agents/forecaster', OTHER);
    expect(deleted.status).toBe(404);
    const named = await api<{ error: { code: string; details: { issues: Array<{ field: string }> } } }>(
      platform,
      'POST',
      '/v1/agents',
      OTHER,
      planner('their-planner'),
    );
    expect(named.status).toBe(400);
    expect(named.body.error.code).toBe('INVALID_AGENT_SPEC');
    expect(named.body.error.details.issues.map((i) => i.field)).toContain('delegates.0.remoteAgent');
  });

  it('hands a plan subtask to the remote agent as a child run and passes its answer on', async () => {
    expect((await api(platform, 'POST', '/v1/agents', TENANT, planner('planner'))).status).toBe(201);
    const before = remote.authorizations.length;
    const turn = await api<RunJson>(platform, 'POST', '/v1/conversations/a2a-1/messages', TENANT, {
      content: 'Paris tomorrow',
      agent: 'planner',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    const run = (await api<RunJson>(platform, 'GET', `/v1/runs/${turn.body.runId}`, TENANT)).body;
    expect(run.plan!.subtasks.map((s) => [s.id, s.status])).toEqual([
      ['forecast', 'completed'],
      ['summary', 'completed'],
    ]);
    // The remote agent's answer (its artifact) is the subtask's result, and the summary got it.
    expect(run.plan!.context['forecast']).toMatch(/^done: forecast for Paris tomorrow/);
    expect(run.plan!.context['summary']).toContain('done: forecast for Paris tomorrow');
    const forecastChild = run.children.find((c) => c.runId === run.plan!.subtasks[0]!.childRunIds[0])!;
    expect(forecastChild).toMatchObject({ role: 'forecaster', status: 'completed' });
    // Every call carried the stored credential's token.
    const sent = remote.authorizations.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set(['Bearer partner-token-0123456789']));
    // The credential was read by the orchestrator for that child run, through a grant (the audit trail).
    const audit = await api<{
      events: Array<{ service: string; actor: { kind: string; tool?: string; runId?: string } }>;
    }>(platform, 'GET', '/v1/credentials/audit', TENANT);
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({
        service: 'partner-agents',
        actor: expect.objectContaining({ kind: 'tool', tool: 'remote_agent', runId: forecastChild.runId }),
      }),
    );
  });

  it('resumes following the same remote task after the orchestrator is SIGKILLed', async () => {
    const created = remote.tasksCreated();
    const pending = api<RunJson>(platform, 'POST', '/v1/conversations/a2a-2/messages', TENANT, {
      content: 'hold Berlin',
      agent: 'planner',
    });
    const polled = remote.methods.length;
    await waitFor('the remote task to start', async () => (remote.tasksCreated() > created ? true : undefined), 60_000);
    // A poll (tasks/get) comes after the task is recorded with the child run: kill the orchestrator then.
    await waitFor('the remote task to be followed', async () =>
      remote.methods.slice(polled).includes('GetTask') ? true : undefined,
    );
    await platform.kill('orchestrator');
    await platform.start('orchestrator');
    // The remote task is still the only one: the resumed child follows it (tasks/get) and gets its answer.
    remote.release();
    const turn = await pending;
    expect(turn.body.status).toBe('completed');
    const run = (await api<RunJson>(platform, 'GET', `/v1/runs/${turn.body.runId}`, TENANT)).body;
    expect(run.plan!.context['forecast']).toBe('released');
    expect(remote.tasksCreated()).toBe(created + 1);
  });

  it("cancels the remote task (tasks/cancel) when the subtask's deadline passes", async () => {
    const spec = planner('impatient', { timeoutMs: 1_500 }, { maxReplans: 0, maxSubtaskFailures: 1 });
    expect((await api(platform, 'POST', '/v1/agents', TENANT, spec)).status).toBe(201);
    const cancelledBefore = remote.cancelled.length;
    const turn = await api<RunJson>(platform, 'POST', '/v1/conversations/a2a-3/messages', TENANT, {
      content: 'hold forever',
      agent: 'impatient',
    });
    expect(turn.body.status).toBe('failed');
    const run = (await api<RunJson>(platform, 'GET', `/v1/runs/${turn.body.runId}`, TENANT)).body;
    expect(run.plan!.subtasks[0]).toMatchObject({ id: 'forecast', status: 'failed' });
    await waitFor('the remote task to be cancelled', async () =>
      remote.cancelled.length > cancelledBefore ? true : undefined,
    );
  });
});

describe('A2A delegation to a second platform instance', () => {
  const PARTNER = { tenant: 'partner-tenant', roles: ['admin'] };
  let second: SuitePlatform;

  beforeAll(async () => {
    // Another set of services with its own database, NATS and tenant: the remote A2A agent is one
    // of its agents, served by its own api's A2A endpoint.
    second = await bootPlatform('a2a_delegation_remote');
    const desk = await api(second, 'POST', '/v1/agents', PARTNER, {
      name: 'forecast-desk',
      description: 'Forecasts, from the partner platform.',
      instructions: 'You forecast the weather. [persona-scenario:plan-summarise]',
      tools: [],
    });
    expect(desk.status).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await second?.stop();
  });

  it("hands a plan subtask to an agent of the other platform over A2A, with a token of the other platform's tenant", async () => {
    // The token the remote platform accepts for its tenant, stored as this tenant's credential.
    const stored = await api(platform, 'PUT', '/v1/credentials/partner-platform/primary', TENANT, {
      secret: { access_token: await tokenFor(PARTNER) },
    });
    expect(stored.status).toBe(200);
    const url = `${second.apiUrl}/v1/agents/forecast-desk/a2a/.well-known/agent-card.json`;
    // The platform's cards answer only a caller with a token: without the credential the card cannot be read.
    const anonymous = await api<{ error: { code: string } }>(platform, 'POST', '/v1/remote-agents', TENANT, {
      name: 'desk-anonymous',
      url,
    });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([422, 'REMOTE_AGENT_CARD_UNREADABLE']);
    const created = await api<{ remoteAgent: RemoteAgentJson }>(platform, 'POST', '/v1/remote-agents', TENANT, {
      name: 'partner-desk',
      url,
      auth: { credentialService: 'partner-platform' },
    });
    expect(created.status).toBe(201);
    expect(created.body.remoteAgent.card).toMatchObject({ name: 'forecast-desk', transport: 'JSONRPC' });
    const spec = planner('partner-planner');
    spec.delegates[0] = { ...spec.delegates[0]!, remoteAgent: 'partner-desk' };
    expect((await api(platform, 'POST', '/v1/agents', TENANT, spec)).status).toBe(201);

    const turn = await api<RunJson>(platform, 'POST', '/v1/conversations/a2a-remote-1/messages', TENANT, {
      content: 'Oslo on Friday',
      agent: 'partner-planner',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    const run = (await api<RunJson>(platform, 'GET', `/v1/runs/${turn.body.runId}`, TENANT)).body;
    // The other platform's agent answered the subtask (its scripted model summarises its task).
    expect(run.plan!.context['forecast']).toMatch(/^Summary: forecast for Oslo on Friday/);
    expect(run.plan!.context['summary']).toContain('Summary: forecast for Oslo on Friday');
    // On the other platform the subtask was a run of its tenant's agent, which came in over A2A.
    const remoteRuns = await api<{
      runs: Array<{ profile?: string; agentName?: string; protocol: string | null; status: string }>;
    }>(second, 'GET', '/v1/runs?protocol=a2a', PARTNER);
    expect(remoteRuns.status).toBe(200);
    expect(remoteRuns.body.runs.map((r) => [r.protocol, r.status])).toEqual([['a2a', 'completed']]);
  });
});
