// A tenant agent's version survives a wait and a restart (issue 36): a run waiting on an approval
// keeps v1 while v2 is published and every service of the platform is killed and started again; the user's
// "yes" goes on under v1; a new conversation then runs under v2. The agent is written through the
// orchestrator's AgentService as the api does (the REST routes are the api's); messages go through
// the api, naming the agent with `profile`.
import { agentsV1, orchestratorV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PLATFORM_APPS, type ManagedProcess } from '@platform/testing';
import { api, bootPlatform, startRunnerProcess, waitForCatalog, type SuitePlatform, type TurnJson } from './support.js';

const TENANT = 'agent-versions';
const ARCHIVE = '[scenario:gated-archive] Archive the EMEA orders older than 90 days.';

let platform: SuitePlatform;
let runner: ManagedProcess;

const clients = async () => {
  const options = {
    defaultDeadlineMs: 20_000,
    transport: new MutualTlsTransport(await platform.pki.issue('api')),
    server: 'orchestrator',
  };
  const address = `127.0.0.1:${platform.ports.orchestrator}`;
  return {
    agents: createGrpcClient(agentsV1.AgentServiceClient, agentsV1.AgentServiceService, address, options),
    runs: createGrpcClient(
      orchestratorV1.OrchestratorServiceClient,
      orchestratorV1.OrchestratorServiceService,
      address,
      options,
    ),
  };
};

let grpc: {
  agents: GrpcClientHandle<agentsV1.AgentServiceClient>;
  runs: GrpcClientHandle<orchestratorV1.OrchestratorServiceClient>;
};

beforeAll(async () => {
  platform = await bootPlatform('agent_versions', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  runner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  await waitForCatalog(platform.apiUrl, ['archive_orders']);
  grpc = await clients();
});
afterAll(async () => {
  grpc?.agents.close();
  grpc?.runs.close();
  await runner?.stop();
  await platform?.stop();
});

const caller = { tenantId: TENANT, subject: 'ops', tier: '' };
const spec = (marker: string) =>
  JSON.stringify({ name: 'archivist', instructions: `You archive orders. VERSION-MARKER ${marker}.` });

/** The system prompts llm-sim saw in the model calls of a conversation (its user messages hold `tag`). */
async function systemPrompts(tag: string): Promise<string[]> {
  const response = await fetch(`${platform.llmSimUrl}/_sim/requests`);
  const { requests } = (await response.json()) as {
    requests: { structuredReply: string | null; body: { messages: { role: string; content: string | null }[] } }[];
  };
  // The chat completions of turns, not memory's extraction of them (which quotes the conversation).
  return requests
    .filter((r) => r.structuredReply === null)
    .filter((r) => r.body.messages.some((m) => m.role === 'user' && (m.content ?? '').includes(tag)))
    .map((r) => r.body.messages.find((m) => m.role === 'system')?.content ?? '');
}

it('keeps a run waiting on an approval on v1 across a restart while v2 is published; new work runs v2', async () => {
  const v1 = (await grpc.agents.rpc.createAgent({ caller, specJson: spec('v1'), draft: false })).agent!;
  const send = (conversation: string, content: string) =>
    api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, TENANT, {
      content,
      profile: 'archivist',
    });

  const waiting = await send('versions-1', `${ARCHIVE} (tag-w1)`);
  expect(waiting.status).toBe(200);
  expect(waiting.body).toMatchObject({ status: 'waiting', pending: [{ waitingFor: 'approval' }] });

  const v2 = (
    await grpc.agents.rpc.updateAgent({
      caller,
      agent: 'archivist',
      specJson: spec('v2'),
      ifMatch: v1.revision,
      draft: false,
    })
  ).agent!;
  expect(v2.activeVersion).toBe(2);
  // Every service of the platform is killed (SIGKILL) and started again; only the simulated model stays.
  const services = PLATFORM_APPS.filter((app) => app !== 'llm-sim');
  for (const app of [...services].reverse()) await platform.kill(app);
  for (const app of services) await platform.start(app);
  await waitForCatalog(platform.apiUrl, ['archive_orders']);

  const yes = await send('versions-1', 'yes');
  expect(yes.body).toMatchObject({ status: 'completed' });
  const resumed = await grpc.runs.rpc.getRun({ tenantId: TENANT, runId: yes.body.runId });
  expect(resumed).toMatchObject({ agentId: v1.agentId, agentVersion: 1 });
  const prompts = await systemPrompts('tag-w1');
  expect(prompts.length).toBeGreaterThanOrEqual(2);
  for (const prompt of prompts) expect(prompt).toContain('VERSION-MARKER v1.');

  const fresh = await send('versions-2', '[scenario:plain] tag-w2');
  expect(fresh.body).toMatchObject({ status: 'completed' });
  expect(await grpc.runs.rpc.getRun({ tenantId: TENANT, runId: fresh.body.runId })).toMatchObject({ agentVersion: 2 });
  expect(await systemPrompts('tag-w2')).toEqual([expect.stringContaining('VERSION-MARKER v2.')]);
});
