import { USER_CANCELLED_MESSAGE } from '@platform/contracts';
import type { agentPoolV1 } from '@platform/proto';
import { createLogger, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { defineTool, serveRunner } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deriveEntryId, stepCallId } from './entry-store.js';
import { startAgentPoolServer, type AgentPoolServer } from './server.js';
import {
  emailAgent,
  lookupAgent,
  startFakeAgentRunner,
  type FakeAgentRunner,
} from './test-support/fake-agent-runner.js';
import {
  connectTestNats,
  poolClient,
  rejection,
  startRequest,
  testPoolConfig,
  unique,
  type PoolClient,
} from './test-support/pool-client.js';

const logger = createLogger({ service: 'agent-pool-test', level: 'silent' });
const EMAIL = unique('send_email');
const LOOKUP = unique('lookup');
const FAILING = unique('failing');
const STRICT = unique('strict_email');
const email = emailAgent(EMAIL);

let nc: NatsConnection;
let server: AgentPoolServer;
let client: PoolClient;
let runner: FakeAgentRunner;

beforeAll(async () => {
  nc = await connectTestNats(sharedInfra().natsUrl);
  runner = await startFakeAgentRunner(nc, [
    email,
    lookupAgent(LOOKUP),
    emailAgent(STRICT, '1', { options: ['approve', 'cancel'], allowModification: false }),
    {
      name: FAILING,
      schemaVersion: '1',
      step: () => {
        throw new Error('unreachable');
      },
      fail: () => ({ status: 'failed', code: 'HANDLER_FAILED', message: 'the mail server refused the connection' }),
    },
  ]);
  const config = await testPoolConfig('agent_pool', { MAX_LIVE_AGENTS_PER_TENANT: '3', SWEEP_INTERVAL_MS: '60000' });
  server = await startAgentPoolServer(config, logger);
  client = await poolClient(server.port);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await runner?.stop();
  await nc?.drain();
});

function start(
  tenantId: string,
  callId: string,
  args: Record<string, unknown>,
  agentName = EMAIL,
  options: Parameters<typeof startRequest>[4] = {},
) {
  return client.rpc.startAgent(startRequest(tenantId, agentName, callId, args, options));
}

function continueAgent(
  tenantId: string,
  entryId: string,
  fields: Record<string, unknown>,
  message = 'here you go',
  deadlineMs?: number,
) {
  return client.rpc.continueAgent(
    { tenantId, entryId, fieldsJson: JSON.stringify(fields), message },
    deadlineMs ? { deadlineMs } : {},
  );
}

function resolve(
  tenantId: string,
  approvalId: string,
  decision: string,
  extra: Partial<agentPoolV1.ResolveApprovalRequest> = {},
) {
  return client.rpc.resolveApproval({ tenantId, approvalId, decision, changesJson: '', reply: '', ...extra });
}

/** An entry of `tenant` waiting for approval of an email. */
async function awaitingApproval(tenantId: string, callId = unique('call')): Promise<agentPoolV1.AgentEntry> {
  const { entry } = await start(tenantId, callId, { to: 'team@example.com', subject: 'Status' });
  expect(entry?.status).toBe('waiting_for_approval');
  return entry!;
}

const callsOf = (entryId: string) => runner.calls.filter((c) => c.callId.startsWith(`agent-pool:${entryId}:`));

describe('AgentPoolService lifecycle', () => {
  it('runs start -> waiting_for_input -> continue -> waiting_for_approval -> approve -> completed', async () => {
    const tenant = unique('t');
    const started = await start(tenant, 'call_abc', { subject: 'Quarterly report' }, EMAIL, {
      conversationId: 'conv-9',
      runId: 'run-7',
    });
    expect(started.duplicate).toBe(false);
    const entry = started.entry!;
    expect(entry).toMatchObject({
      entryId: deriveEntryId({ tenantId: tenant, conversationId: 'conv-9', runId: 'run-7', callId: 'call_abc' }),
      tenantId: tenant,
      conversationId: 'conv-9',
      runId: 'run-7',
      callId: 'call_abc',
      agentName: EMAIL,
      status: 'waiting_for_input',
      schemaVersion: '1',
      prompt: 'Please give: to',
      missing: [{ name: 'to', description: 'Recipient email address', reason: '' }],
      source: { kind: 'user', taskId: '' },
      step: 1,
      resultJson: '',
    });
    expect(JSON.parse(entry.collectedJson)).toEqual({ subject: 'Quarterly report' });
    expect(entry.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);

    const input = (
      await continueAgent(tenant, entry.entryId, { to: 'boss@example.com' }, 'send it to boss@example.com')
    ).entry!;
    expect(input).toMatchObject({
      status: 'waiting_for_approval',
      step: 2,
      prompt: 'Send the email to boss@example.com?',
    });
    expect(input.approval).toMatchObject({
      agentName: EMAIL,
      actionSummary: 'Send email to boss@example.com',
      options: ['approve', 'edit', 'cancel'],
      timeoutMinutes: 30,
      allowModification: true,
    });
    expect(JSON.parse(input.approval!.detailsJson)).toEqual({ to: 'boss@example.com', subject: 'Quarterly report' });
    expect(input.expiresAt!.getTime() - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(input.expiresAt!.getTime() - Date.now()).toBeLessThanOrEqual(30 * 60_000);

    const pending = await client.rpc.listPending({ tenantId: tenant, conversationId: '' });
    expect(pending.entries.map((e) => e.approval?.approvalId)).toEqual([input.approval!.approvalId]);

    const done = (await resolve(tenant, input.approval!.approvalId, 'approve')).entry!;
    expect(done).toMatchObject({ status: 'completed', step: 3, prompt: '', errorCode: '' });
    expect(done.expiresAt).toBeUndefined();
    expect(JSON.parse(done.resultJson)).toEqual({ sent: true, to: 'boss@example.com', subject: 'Quarterly report' });
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toEqual([]);

    // Each step went out with its deterministic call id and the agent protocol body.
    const calls = callsOf(entry.entryId);
    expect(calls.map((c) => c.callId)).toEqual([1, 2, 3].map((n) => stepCallId(entry.entryId, n)));
    expect(calls.map((c) => c.request.agent?.phase)).toEqual(['start', 'input', 'approval']);
    expect(calls.every((c) => c.tenantId === tenant)).toBe(true);
    expect(calls[0]!.request.arguments).toEqual({ subject: 'Quarterly report' });
    expect(calls[1]!.request.agent).toEqual({
      phase: 'input',
      collected: { subject: 'Quarterly report' },
      fields: { to: 'boss@example.com' },
      message: 'send it to boss@example.com',
    });
    expect(calls[2]!.request.agent).toEqual({
      phase: 'approval',
      collected: { subject: 'Quarterly report', to: 'boss@example.com' },
      decision: 'approve',
    });
    expect(email.sent.filter((s) => s['to'] === 'boss@example.com')).toHaveLength(1);

    // A finished entry takes no more steps.
    const again = await rejection(resolve(tenant, input.approval!.approvalId, 'approve'));
    expect(again).toMatchObject({ kind: 'failed_precondition', code: 'AGENT_NOT_WAITING' });
  });

  it('starts once per call (tenant, conversation, run, call id), also when repeats arrive together', async () => {
    const tenant = unique('t');
    const first = await start(tenant, 'call_1', { subject: 'x' });
    const repeat = await start(tenant, 'call_1', { subject: 'different arguments are ignored' });
    expect(repeat.duplicate).toBe(true);
    expect(repeat.entry).toEqual(first.entry);
    expect(callsOf(first.entry!.entryId)).toHaveLength(1);

    const together = await Promise.all([1, 2, 3, 4].map(() => start(tenant, 'call_2', { subject: 'y' })));
    expect(together.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(together.map((r) => r.entry!.entryId)).size).toBe(1);
    expect(callsOf(together[0]!.entry!.entryId)).toHaveLength(1);

    // The same call id of another tenant is another entry.
    const other = await start(unique('t'), 'call_1', { subject: 'x' });
    expect(other.duplicate).toBe(false);
    expect(other.entry!.entryId).not.toBe(first.entry!.entryId);
  });

  it('starts another entry for a call id repeated in another run or conversation (models reuse ids across prompts)', async () => {
    const tenant = unique('t');
    const first = await start(tenant, 'call_1', { subject: 'x' });
    const nextRun = await start(tenant, 'call_1', { subject: 'x' }, EMAIL, { runId: 'run-2' });
    const otherConversation = await start(tenant, 'call_1', { subject: 'x' }, EMAIL, { conversationId: 'conv-2' });
    for (const started of [nextRun, otherConversation]) {
      expect(started.duplicate).toBe(false);
      expect(started.entry).toMatchObject({ status: 'waiting_for_input', step: 1, callId: 'call_1' });
    }
    expect(new Set([first, nextRun, otherConversation].map((s) => s.entry!.entryId)).size).toBe(3);
    expect((await start(tenant, 'call_1', { subject: 'x' }, EMAIL, { runId: 'run-2' })).duplicate).toBe(true);
  });

  it('stores an agent that finishes at once, and a failing one, for dedupe and audit', async () => {
    const tenant = unique('t');
    const done = await start(tenant, 'call_lookup', { q: 'meaning' }, LOOKUP);
    expect(done.entry).toMatchObject({ status: 'completed', step: 1, resultJson: '{"answer":42}' });
    const repeat = await start(tenant, 'call_lookup', { q: 'meaning' }, LOOKUP);
    expect(repeat).toMatchObject({ duplicate: true, entry: { status: 'completed' } });
    expect(callsOf(done.entry!.entryId)).toHaveLength(1);

    const failed = await start(tenant, 'call_fail', {}, FAILING);
    expect(failed.entry).toMatchObject({
      status: 'error',
      errorCode: 'HANDLER_FAILED',
      errorMessage: 'the mail server refused the connection',
      step: 1,
    });
    expect((await start(tenant, 'call_fail', {}, FAILING)).duplicate).toBe(true);
  });

  it('passes edit changes through to the agent', async () => {
    const tenant = unique('t');
    const entry = await awaitingApproval(tenant);
    const done = (
      await resolve(tenant, entry.approval!.approvalId, 'edit', {
        changesJson: JSON.stringify({ subject: 'Status (corrected)' }),
      })
    ).entry!;
    expect(done.status).toBe('completed');
    expect(JSON.parse(done.resultJson)).toMatchObject({ subject: 'Status (corrected)', to: 'team@example.com' });
    expect(callsOf(entry.entryId).at(-1)!.request.agent).toEqual({
      phase: 'approval',
      collected: { to: 'team@example.com', subject: 'Status' },
      decision: 'edit',
      changes: { subject: 'Status (corrected)' },
    });
  });

  it('passes a raw reply for the agent to read', async () => {
    const tenant = unique('t');
    const entry = await awaitingApproval(tenant);
    const done = (await resolve(tenant, entry.approval!.approvalId, '', { reply: 'no, do not send it' })).entry!;
    expect(done).toMatchObject({ status: 'cancelled', resultJson: JSON.stringify(USER_CANCELLED_MESSAGE) });
    expect(callsOf(entry.entryId).at(-1)!.request.agent).toEqual({
      phase: 'approval',
      collected: { to: 'team@example.com', subject: 'Status' },
      reply: 'no, do not send it',
    });
  });

  it('cancels a live entry with the user-cancelled result', async () => {
    const tenant = unique('t');
    const { entry } = await start(tenant, 'call_c', { subject: 'x' });
    const cancelled = (await client.rpc.cancelAgent({ tenantId: tenant, entryId: entry!.entryId })).entry!;
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      resultJson: JSON.stringify(USER_CANCELLED_MESSAGE),
      prompt: '',
      step: 1,
    });
    expect(cancelled.expiresAt).toBeUndefined();
    // The runner keeps no state, so cancelling calls nobody.
    expect(callsOf(entry!.entryId)).toHaveLength(1);
    expect((await client.rpc.cancelAgent({ tenantId: tenant, entryId: entry!.entryId })).entry).toEqual(cancelled);
    expect(await rejection(continueAgent(tenant, entry!.entryId, { to: 'a@b.c' }))).toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_NOT_WAITING',
    });
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toEqual([]);
    expect(await rejection(client.rpc.pauseAgent({ tenantId: tenant, entryId: entry!.entryId }))).toMatchObject({
      code: 'AGENT_NOT_LIVE',
    });
  });

  it('pauses and resumes, and a paused entry takes no steps', async () => {
    const tenant = unique('t');
    const entry = await awaitingApproval(tenant);
    const paused = (await client.rpc.pauseAgent({ tenantId: tenant, entryId: entry.entryId })).entry!;
    expect(paused).toMatchObject({ status: 'paused', pausedFrom: 'waiting_for_approval' });
    expect(paused.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3_600_000);
    expect((await client.rpc.pauseAgent({ tenantId: tenant, entryId: entry.entryId })).entry!.status).toBe('paused');
    expect(await rejection(resolve(tenant, entry.approval!.approvalId, 'approve'))).toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_PAUSED',
    });
    expect(
      (await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries.map((e) => e.status),
    ).toEqual(['paused']);

    const resumed = (await client.rpc.resumeAgent({ tenantId: tenant, entryId: entry.entryId })).entry!;
    expect(resumed).toMatchObject({
      status: 'waiting_for_approval',
      pausedFrom: '',
      approval: { approvalId: entry.approval!.approvalId },
    });
    expect(resumed.expiresAt!.getTime() - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    expect((await resolve(tenant, entry.approval!.approvalId, 'approve')).entry!.status).toBe('completed');
    expect(callsOf(entry.entryId)).toHaveLength(2);
  });

  it('lists live entries with their approval requests and source', async () => {
    const tenant = unique('t');
    await start(tenant, 'call_d', {}, LOOKUP);
    const a = await awaitingApproval(tenant, 'call_a');
    const b = (
      await start(tenant, 'call_b', { subject: 'needs a recipient' }, EMAIL, {
        source: { kind: 'trigger', taskId: 'task-42' },
      })
    ).entry!;
    const c = (await start(tenant, 'call_c', { subject: 'elsewhere' }, EMAIL, { conversationId: 'conv-2' })).entry!;

    const all = (await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries;
    expect(all.map((e) => e.entryId)).toEqual([a.entryId, b.entryId, c.entryId]);
    expect(all[0]!.approval?.actionSummary).toBe('Send email to team@example.com');
    expect(all[0]!.source).toEqual({ kind: 'user', taskId: '' });
    expect(all[1]!.source).toEqual({ kind: 'trigger', taskId: 'task-42' });
    expect(all[1]!.missing.map((m) => m.name)).toEqual(['to']);
    const conv1 = (await client.rpc.listPending({ tenantId: tenant, conversationId: 'conv-1' })).entries;
    expect(conv1.map((e) => e.entryId)).toEqual([a.entryId, b.entryId]);
  });

  it('limits live entries per tenant, also for concurrent starts', async () => {
    const tenant = unique('t');
    const entries = [];
    for (let i = 0; i < 3; i++) entries.push((await start(tenant, `call_${i}`, { subject: 's' })).entry!);
    const refused = await rejection(start(tenant, 'call_3', { subject: 's' }));
    expect(refused).toMatchObject({
      kind: 'resource_exhausted',
      code: 'TOO_MANY_AGENTS',
      details: { live: 3, limit: 3 },
    });
    expect(refused.message).toMatch(/limit is 3/);
    expect(
      runner.calls.filter(
        (c) =>
          c.callId ===
          stepCallId(
            deriveEntryId({ tenantId: tenant, conversationId: 'conv-1', runId: 'run-1', callId: 'call_3' }),
            1,
          ),
      ),
    ).toEqual([]);

    await client.rpc.cancelAgent({ tenantId: tenant, entryId: entries[0]!.entryId });
    expect((await start(tenant, 'call_3', { subject: 's' })).entry!.status).toBe('waiting_for_input');

    const racing = unique('t');
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => start(racing, `race_${i}`, { subject: 's' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'TOO_MANY_AGENTS' });
    expect((await client.rpc.listPending({ tenantId: racing, conversationId: '' })).entries).toHaveLength(3);
  });

  it("treats another tenant's entry exactly like a missing one", async () => {
    const owner = unique('t');
    const intruder = unique('t');
    const entry = await awaitingApproval(owner);
    const missing = '00000000-0000-8000-8000-000000000000';
    const attempts: Array<[string, (id: string) => Promise<unknown>]> = [
      ['get', (id) => client.rpc.getAgent({ tenantId: intruder, entryId: id })],
      ['continue', (id) => continueAgent(intruder, id, { to: 'x@y.z' })],
      ['pause', (id) => client.rpc.pauseAgent({ tenantId: intruder, entryId: id })],
      ['resume', (id) => client.rpc.resumeAgent({ tenantId: intruder, entryId: id })],
      ['cancel', (id) => client.rpc.cancelAgent({ tenantId: intruder, entryId: id })],
    ];
    for (const [, attempt] of attempts) {
      const foreign = await rejection(attempt(entry.entryId));
      const absent = await rejection(attempt(missing));
      expect(foreign).toMatchObject({ kind: 'not_found', code: 'AGENT_NOT_FOUND' });
      expect([foreign.code, foreign.message, foreign.details]).toEqual([absent.code, absent.message, absent.details]);
    }
    const foreignApproval = await rejection(resolve(intruder, entry.approval!.approvalId, 'approve'));
    const absentApproval = await rejection(resolve(intruder, missing, 'approve'));
    expect(foreignApproval).toMatchObject({ kind: 'not_found', code: 'APPROVAL_NOT_FOUND' });
    expect(foreignApproval.message).toBe(absentApproval.message);
    expect((await client.rpc.listPending({ tenantId: intruder, conversationId: '' })).entries).toEqual([]);
    expect(
      (await client.rpc.listPending({ tenantId: intruder, conversationId: entry.conversationId })).entries,
    ).toEqual([]);

    const untouched = (await client.rpc.getAgent({ tenantId: owner, entryId: entry.entryId })).entry;
    expect(untouched).toEqual(entry);
    expect(callsOf(entry.entryId)).toHaveLength(1);
  });

  it('lets one step run at a time per entry', async () => {
    const tenant = unique('t');
    const { entry } = await start(tenant, 'call_busy', { subject: 'x' });
    runner.delay(400);
    try {
      const results = await Promise.allSettled([
        continueAgent(tenant, entry!.entryId, { to: 'a@example.com' }),
        continueAgent(tenant, entry!.entryId, { to: 'b@example.com' }),
      ]);
      const ok = results.filter(
        (r): r is PromiseFulfilledResult<agentPoolV1.ContinueAgentResponse> => r.status === 'fulfilled',
      );
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(ok).toHaveLength(1);
      expect(ok[0]!.value.entry).toMatchObject({ status: 'waiting_for_approval', step: 2 });
      expect(failed[0]!.reason).toMatchObject({ kind: 'failed_precondition', code: 'STEP_IN_PROGRESS' });
      expect(callsOf(entry!.entryId)).toHaveLength(2);
    } finally {
      runner.delay(0);
    }
  });

  it('leaves the entry unchanged when a step times out, and the retry is answered without running twice', async () => {
    const tenant = unique('t');
    const { entry } = await start(tenant, 'call_slow', { subject: 'x' });
    const executions = runner.executions;
    runner.delay(700);
    try {
      const timedOut = await rejection(continueAgent(tenant, entry!.entryId, { to: 'a@example.com' }, 'a', 400));
      expect(timedOut.kind).toBe('deadline_exceeded');
      expect((await client.rpc.getAgent({ tenantId: tenant, entryId: entry!.entryId })).entry).toEqual(entry);
      await expect.poll(() => runner.executions, { timeout: 3_000 }).toBe(executions + 1);
    } finally {
      runner.delay(0);
    }
    const retried = (await continueAgent(tenant, entry!.entryId, { to: 'a@example.com' }, 'a')).entry!;
    expect(retried).toMatchObject({ status: 'waiting_for_approval', step: 2 });
    const steps = callsOf(entry!.entryId).filter((c) => c.callId === stepCallId(entry!.entryId, 2));
    expect(steps.map((c) => c.replayed)).toEqual([false, true]);
    expect(runner.executions).toBe(executions + 1);
  });

  it.each([
    [
      'tenant',
      () =>
        client.rpc.getAgent({
          tenantId: 'bad tenant',
          entryId: deriveEntryId({ tenantId: 'x', conversationId: 'c', runId: undefined, callId: 'y' }),
        }),
      'INVALID_TENANT_ID',
    ],
    ['entry id', () => client.rpc.getAgent({ tenantId: 'acme', entryId: 'nope' }), 'INVALID_ENTRY_ID'],
    ['agent name', () => client.rpc.startAgent(startRequest('acme', 'bad name', 'c1', {})), 'INVALID_AGENT_NAME'],
    ['call id', () => client.rpc.startAgent(startRequest('acme', EMAIL, 'has space', {})), 'INVALID_CALL_ID'],
    [
      'arguments',
      () => client.rpc.startAgent({ ...startRequest('acme', EMAIL, 'c1', {}), argumentsJson: '[1]' }),
      'INVALID_ARGUMENTS_JSON',
    ],
    [
      'source',
      () => client.rpc.startAgent(startRequest('acme', EMAIL, 'c1', {}, { source: { kind: 'trigger', taskId: '' } })),
      'INVALID_SOURCE',
    ],
    [
      'fields',
      () =>
        client.rpc.continueAgent({
          tenantId: 'acme',
          entryId: deriveEntryId({ tenantId: 'x', conversationId: 'c', runId: undefined, callId: 'y' }),
          fieldsJson: '{',
          message: '',
        }),
      'INVALID_FIELDS_JSON',
    ],
    [
      'decision',
      () =>
        resolve('acme', deriveEntryId({ tenantId: 'x', conversationId: 'c', runId: undefined, callId: 'y' }), 'maybe'),
      'INVALID_DECISION',
    ],
    [
      'no decision',
      () => resolve('acme', deriveEntryId({ tenantId: 'x', conversationId: 'c', runId: undefined, callId: 'y' }), ''),
      'DECISION_REQUIRED',
    ],
    [
      'changes without edit',
      () =>
        resolve(
          'acme',
          deriveEntryId({ tenantId: 'x', conversationId: 'c', runId: undefined, callId: 'y' }),
          'approve',
          { changesJson: '{"a":1}' },
        ),
      'CHANGES_NEED_EDIT',
    ],
  ])('rejects a bad %s', async (_what, call, code) => {
    expect(await rejection(call())).toMatchObject({ kind: 'invalid_argument', code });
  });

  it('refuses input for an entry that waits for approval', async () => {
    const tenant = unique('t');
    const entry = await awaitingApproval(tenant);
    await expect(continueAgent(tenant, entry.entryId, {})).rejects.toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_AWAITING_APPROVAL',
    });
    expect((await client.rpc.getAgent({ tenantId: tenant, entryId: entry.entryId })).entry).toEqual(entry);
  });

  it('refuses a decision or changes the approval request does not offer', async () => {
    const tenant = unique('t');
    const entry = (await start(tenant, 'call_strict', { to: 'a@example.com', subject: 's' }, STRICT)).entry!;
    expect(entry.approval).toMatchObject({ options: ['approve', 'cancel'], allowModification: false });
    const approvalId = entry.approval!.approvalId;
    expect(await rejection(resolve(tenant, approvalId, 'edit'))).toMatchObject({
      kind: 'invalid_argument',
      code: 'DECISION_NOT_OFFERED',
    });
    expect(await rejection(resolve(tenant, approvalId, 'edit', { changesJson: '{"subject":"t"}' }))).toMatchObject({
      code: 'DECISION_NOT_OFFERED',
    });
    expect((await client.rpc.getAgent({ tenantId: tenant, entryId: entry.entryId })).entry).toEqual(entry);
    expect(callsOf(entry.entryId)).toHaveLength(1);
    expect((await resolve(tenant, approvalId, 'cancel')).entry!.status).toBe('cancelled');
  });
});

describe('schema version guard and runner availability', () => {
  it('discards entries saved under another schema version without running them', async () => {
    const name = unique('versioned');
    const tenant = unique('t');
    const v1 = await startFakeAgentRunner(nc, [emailAgent(name, '1')]);
    await server.refreshCatalog();
    const waitingInput = (await start(tenant, 'call_in', { subject: 's' }, name)).entry!;
    const waitingApproval = (await start(tenant, 'call_ap', { to: 'a@example.com', subject: 's' }, name)).entry!;
    await v1.stop();
    const v2 = await startFakeAgentRunner(nc, [emailAgent(name, '2')]);
    try {
      await server.refreshCatalog();
      const discarded = (await continueAgent(tenant, waitingInput.entryId, { to: 'a@example.com' })).entry!;
      expect(discarded).toMatchObject({
        status: 'error',
        errorCode: 'SCHEMA_VERSION_CHANGED',
        schemaVersion: '1',
        step: 1,
      });
      expect(discarded.errorMessage).toMatch(/schema version 1, now schema version 2/);
      expect(discarded.errorMessage).toMatch(/discarded/);
      const alsoDiscarded = (await resolve(tenant, waitingApproval.approval!.approvalId, 'approve')).entry!;
      expect(alsoDiscarded).toMatchObject({ status: 'error', errorCode: 'SCHEMA_VERSION_CHANGED' });
      expect(v2.calls).toEqual([]);
      expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toEqual([]);
      expect(await rejection(continueAgent(tenant, waitingInput.entryId, { to: 'a@example.com' }))).toMatchObject({
        code: 'AGENT_NOT_WAITING',
      });
      // A new start runs under the new version.
      expect((await start(tenant, 'call_new', { subject: 's' }, name)).entry).toMatchObject({
        status: 'waiting_for_input',
        schemaVersion: '2',
      });
    } finally {
      await v2.stop();
    }
  });

  it('discards a state the agent produced under another schema version than the entry was saved under', async () => {
    const name = unique('drifting');
    const tenant = unique('t');
    const base = emailAgent(name, '1');
    // Publishes version 1 but answers later steps under version 2, as a runner deployed between check and call would.
    const drifting = await startFakeAgentRunner(nc, [
      { ...base, step: (request, version) => base.step(request, request.agent?.phase === 'input' ? '2' : version) },
    ]);
    try {
      await server.refreshCatalog();
      const entry = (await start(tenant, 'call_drift', { subject: 's' }, name)).entry!;
      const discarded = (await continueAgent(tenant, entry.entryId, { to: 'a@example.com' })).entry!;
      expect(discarded).toMatchObject({ status: 'error', errorCode: 'SCHEMA_VERSION_CHANGED', step: 2, prompt: '' });
    } finally {
      await drifting.stop();
    }
  });

  it('refuses to start a plain tool as an agent', async () => {
    const name = unique('plain_tool');
    const plain = await serveRunner({
      nc,
      name: unique('plain-runner').replaceAll('_', '-'),
      version: '1.0.0',
      logger,
      tools: [
        defineTool({ name, description: 'a plain tool', input: z.object({}), handler: async () => ({ ok: true }) }),
      ],
    });
    try {
      await server.refreshCatalog();
      expect(await rejection(start(unique('t'), 'call_plain', {}, name))).toMatchObject({
        kind: 'failed_precondition',
        code: 'NOT_AN_AGENT',
      });
    } finally {
      await plain.stop(1_000);
    }
  });

  it('answers UNAVAILABLE and keeps the entry when the agent runner is offline', async () => {
    const name = unique('offline');
    const tenant = unique('t');
    const first = await startFakeAgentRunner(nc, [emailAgent(name)]);
    await server.refreshCatalog();
    const entry = (await start(tenant, 'call_off', { subject: 's' }, name)).entry!;
    await first.stop();
    await server.refreshCatalog();
    const error = await rejection(continueAgent(tenant, entry.entryId, { to: 'a@example.com' }));
    expect(error).toMatchObject({ kind: 'unavailable', code: 'AGENT_UNAVAILABLE' });
    expect((await client.rpc.getAgent({ tenantId: tenant, entryId: entry.entryId })).entry).toEqual(entry);
    expect(await rejection(start(tenant, 'call_off_2', { subject: 's' }, name))).toMatchObject({
      kind: 'unavailable',
      code: 'AGENT_UNAVAILABLE',
    });
    expect(await rejection(start(tenant, 'call_off_2', { subject: 's' }, name))).toMatchObject({
      code: 'AGENT_UNAVAILABLE',
    });

    // Back online: the same entry continues where it was.
    const again = await startFakeAgentRunner(nc, [emailAgent(name)]);
    try {
      await server.refreshCatalog();
      expect((await continueAgent(tenant, entry.entryId, { to: 'a@example.com' })).entry).toMatchObject({
        status: 'waiting_for_approval',
        step: 2,
      });
    } finally {
      await again.stop();
    }
  });
});
