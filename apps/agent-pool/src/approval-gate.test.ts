// Plain tools that require approval, held in the pool (StartAgent with approval_gate): nothing
// runs until the user approves; then the tool runs once, under the model's call id, with the
// approved (or edited) arguments. Against a real pool server, NATS and a tool-sdk runner.
import { USER_CANCELLED_MESSAGE } from '@platform/contracts';
import { createLogger, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { defineTool, serveRunner, ToolFailure, type ToolContext } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentPoolConfig } from './config.js';
import { startAgentPoolServer, type AgentPoolServer } from './server.js';
import { emailAgent, startFakeAgentRunner, type FakeAgentRunner } from './test-support/fake-agent-runner.js';
import {
  connectTestNats,
  poolClient,
  rejection,
  startRequest,
  testPoolConfig,
  unique,
  type PoolClient,
} from './test-support/pool-client.js';

const logger = createLogger({ service: 'approval-gate-test', level: 'silent' });
const DELETE = unique('delete_file');
const AGENT = unique('email_agent');

/** What the gated tool was asked to do, in order. */
const executions: Array<{ callId: string; input: { path: string; force: boolean } }> = [];

const deleteFile = (input: z.ZodObject) =>
  defineTool({
    name: DELETE,
    description: 'Deletes a file.',
    input,
    requiresApproval: true,
    sideEffect: 'external',
    handler: async (args: Record<string, unknown>, context: ToolContext) => {
      const { path, force } = args as { path: string; force?: boolean };
      if (path === '/locked') throw new ToolFailure('the file is locked');
      executions.push({ callId: context.callId, input: { path, force: force ?? false } });
      return { deleted: path };
    },
  });
const V1 = z.object({ path: z.string(), force: z.boolean().optional() });

let nc: NatsConnection;
let config: AgentPoolConfig;
let server: AgentPoolServer;
let client: PoolClient;
let tools: Awaited<ReturnType<typeof serveRunner>>;
let agents: FakeAgentRunner;

async function serveTools(input: z.ZodObject): Promise<void> {
  tools = await serveRunner({
    nc,
    name: unique('gated-runner').replaceAll('_', '-'),
    version: '1.0.0',
    logger,
    tools: [deleteFile(input)],
  });
  await server.refreshCatalog();
}

beforeAll(async () => {
  nc = await connectTestNats(sharedInfra().natsUrl);
  agents = await startFakeAgentRunner(nc, [emailAgent(AGENT)]);
  config = await testPoolConfig('agent_pool_gates', { APPROVAL_TIMEOUT_MINUTES: '15', SWEEP_INTERVAL_MS: '60000' });
  server = await startAgentPoolServer(config, logger);
  client = await poolClient(server.port);
  await serveTools(V1);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await tools?.stop(1_000);
  await agents?.stop();
  await nc?.drain();
});

function gate(tenantId: string, callId: string, args: Record<string, unknown>, toolName = DELETE) {
  return client.rpc.startAgent(startRequest(tenantId, toolName, callId, args, { approvalGate: true }));
}

function decide(tenantId: string, approvalId: string, decision: string, changes?: Record<string, unknown>, reply = '') {
  return client.rpc.resolveApproval({
    tenantId,
    approvalId,
    decision,
    changesJson: changes ? JSON.stringify(changes) : '',
    reply,
  });
}

const ranFor = (callId: string) => executions.filter((e) => e.callId === callId);

describe('a plain tool that requires approval', () => {
  it('waits for approval of the call as the model made it, and runs nothing yet', async () => {
    const tenant = unique('t');
    const { entry, duplicate } = await gate(tenant, 'call_g1', { path: '/tmp/report.txt' });
    expect(duplicate).toBe(false);
    expect(entry).toMatchObject({
      kind: 'approval_gate',
      status: 'waiting_for_approval',
      agentName: DELETE,
      callId: 'call_g1',
      step: 0,
      approval: {
        agentName: DELETE,
        actionSummary: `Run ${DELETE} with {"path":"/tmp/report.txt"}`,
        options: ['approve', 'edit', 'cancel'],
        allowModification: true,
        timeoutMinutes: 15,
      },
    });
    expect(JSON.parse(entry!.approval!.detailsJson)).toEqual({ path: '/tmp/report.txt' });
    expect(entry!.prompt).toContain('needs your approval');
    expect(entry!.expiresAt!.getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(ranFor('call_g1')).toEqual([]);
    // A repeated start is the same entry, still waiting.
    expect(await gate(tenant, 'call_g1', { path: '/tmp/report.txt' })).toMatchObject({
      duplicate: true,
      entry: { entryId: entry!.entryId, status: 'waiting_for_approval' },
    });
    const { entries } = await client.rpc.listPending({ tenantId: tenant, conversationId: '' });
    expect(entries.map((e) => e.entryId)).toEqual([entry!.entryId]);
  });

  it('runs once after "approve", under the model\'s call id, and finishes with the tool\'s output', async () => {
    const tenant = unique('t');
    const { entry } = await gate(tenant, 'call_g2', { path: '/tmp/a.txt' });
    const done = (await decide(tenant, entry!.approval!.approvalId, 'approve')).entry!;
    expect(done).toMatchObject({ status: 'completed', step: 1, kind: 'approval_gate' });
    expect(JSON.parse(done.resultJson)).toEqual({ deleted: '/tmp/a.txt' });
    expect(ranFor('call_g2')).toEqual([{ callId: 'call_g2', input: { path: '/tmp/a.txt', force: false } }]);
    // Decided once: a second decision is refused and runs nothing.
    expect(await rejection(decide(tenant, entry!.approval!.approvalId, 'approve'))).toMatchObject({
      code: 'AGENT_NOT_WAITING',
    });
    expect(ranFor('call_g2')).toHaveLength(1);
  });

  it('keeps who decided once the decision is taken, and nobody for a refused one', async () => {
    const tenant = unique('t');
    const { entry } = await gate(tenant, 'call_g2b', { path: '/tmp/a2.txt' });
    const approvalId = entry!.approval!.approvalId;
    const refused = client.rpc.resolveApproval({
      tenantId: tenant,
      approvalId,
      decision: '',
      changesJson: '',
      reply: 'hmm, not sure',
      decidedBy: 'mallory',
    });
    expect(await rejection(refused)).toMatchObject({ code: 'DECISION_REQUIRED' });
    const waiting = (await client.rpc.getAgent({ tenantId: tenant, entryId: entry!.entryId })).entry!;
    expect(waiting).toMatchObject({ status: 'waiting_for_approval' });
    expect(waiting.decidedBy).toBeUndefined();
    const done = (
      await client.rpc.resolveApproval({
        tenantId: tenant,
        approvalId,
        decision: 'approve',
        changesJson: '',
        reply: '',
        decidedBy: 'alice',
      })
    ).entry!;
    expect(done).toMatchObject({ status: 'completed', decidedBy: 'alice' });
    expect((await client.rpc.getAgent({ tenantId: tenant, entryId: entry!.entryId })).entry?.decidedBy).toBe('alice');
  });

  it('runs with the user\'s changes laid over the arguments after "edit"', async () => {
    const tenant = unique('t');
    const { entry } = await gate(tenant, 'call_g3', { path: '/tmp/b.txt' });
    const done = (await decide(tenant, entry!.approval!.approvalId, 'edit', { path: '/tmp/c.txt', force: true }))
      .entry!;
    expect(done).toMatchObject({ status: 'completed' });
    expect(JSON.parse(done.collectedJson)).toEqual({ path: '/tmp/c.txt', force: true });
    expect(ranFor('call_g3')).toEqual([{ callId: 'call_g3', input: { path: '/tmp/c.txt', force: true } }]);
  });

  it('runs nothing after "cancel", and the model reads that the user cancelled', async () => {
    const tenant = unique('t');
    const { entry } = await gate(tenant, 'call_g4', { path: '/tmp/d.txt' });
    const done = (await decide(tenant, entry!.approval!.approvalId, 'cancel')).entry!;
    expect(done).toMatchObject({ status: 'cancelled', resultJson: JSON.stringify(USER_CANCELLED_MESSAGE) });
    expect(ranFor('call_g4')).toEqual([]);
  });

  it('needs a decision (nobody reads a free-text reply), and keeps waiting without one', async () => {
    const tenant = unique('t');
    const { entry } = await gate(tenant, 'call_g5', { path: '/tmp/e.txt' });
    expect(await rejection(decide(tenant, entry!.approval!.approvalId, '', undefined, 'hmm, not sure'))).toMatchObject({
      kind: 'invalid_argument',
      code: 'DECISION_REQUIRED',
    });
    expect((await client.rpc.getAgent({ tenantId: tenant, entryId: entry!.entryId })).entry).toMatchObject({
      status: 'waiting_for_approval',
    });
  });

  it("ends in status error with the tool's failure, or its input problems after an edit", async () => {
    const tenant = unique('t');
    const locked = (await gate(tenant, 'call_g6', { path: '/locked' })).entry!;
    expect((await decide(tenant, locked.approval!.approvalId, 'approve')).entry).toMatchObject({
      status: 'error',
      errorCode: 'HANDLER_FAILED',
      errorMessage: 'the file is locked',
    });
    const edited = (await gate(tenant, 'call_g7', { path: '/tmp/f.txt' })).entry!;
    const invalid = (await decide(tenant, edited.approval!.approvalId, 'edit', { path: 42 })).entry!;
    expect(invalid).toMatchObject({ status: 'error', errorCode: 'INVALID_ARGUMENTS' });
    expect(invalid.errorMessage).toContain('path');
    expect(ranFor('call_g7')).toEqual([]);
  });

  it('keeps another tenant out: its approval ids are not found', async () => {
    const { entry } = await gate(unique('t'), 'call_g8', { path: '/tmp/g.txt' });
    expect(await rejection(decide(unique('other'), entry!.approval!.approvalId, 'approve'))).toMatchObject({
      kind: 'not_found',
      code: 'APPROVAL_NOT_FOUND',
    });
    expect(ranFor('call_g8')).toEqual([]);
  });

  it('is refused for an agent-tool (which asks itself) and for a tool no runner serves', async () => {
    expect(await rejection(gate(unique('t'), 'call_g9', {}, AGENT))).toMatchObject({
      kind: 'failed_precondition',
      code: 'NOT_A_PLAIN_TOOL',
    });
    expect(await rejection(gate(unique('t'), 'call_g10', {}, unique('nobody')))).toMatchObject({
      kind: 'unavailable',
      code: 'AGENT_UNAVAILABLE',
    });
  });

  it("survives a restart of the pool, and is discarded, never run, when the tool's input changed meanwhile", async () => {
    const tenant = unique('t');
    const kept = (await gate(tenant, 'call_g11', { path: '/tmp/h.txt' })).entry!;
    const drifting = (await gate(tenant, 'call_g12', { path: '/tmp/i.txt' })).entry!;
    await server.stop();
    server = await startAgentPoolServer({ ...config }, logger);
    client.close();
    client = await poolClient(server.port);
    await server.refreshCatalog();
    expect((await decide(tenant, kept.approval!.approvalId, 'approve')).entry).toMatchObject({ status: 'completed' });
    expect(ranFor('call_g11')).toHaveLength(1);

    // A deploy changes the tool's input schema while the second call waits.
    await tools.stop(1_000);
    await serveTools(z.object({ path: z.string(), force: z.boolean().optional(), reason: z.string().optional() }));
    const discarded = (await decide(tenant, drifting.approval!.approvalId, 'approve')).entry!;
    expect(discarded).toMatchObject({ status: 'error', errorCode: 'SCHEMA_VERSION_CHANGED' });
    expect(discarded.errorMessage).toContain('nothing was done');
    expect(ranFor('call_g12')).toEqual([]);
  });
});
