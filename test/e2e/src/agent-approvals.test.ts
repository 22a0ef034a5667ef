// Agent-tools and structured approvals end to end (seed 000 section 7): flights and weather in
// parallel, an email that waits for approval, the user's "yes" in a new message, the email sent
// once; fields collected across messages; batch approvals by API and by free text; cancel; other
// tenants; and the whole platform restarted between the approval request and the answer.
import { createLogger, createRedis } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  bootPlatform,
  historyOf,
  simRequests,
  storedResultOf,
  waitForCatalog,
  type ApprovalJson,
  type SuitePlatform,
  type TurnJson,
} from './support.js';
import { connectMailAccount, startTravelRunner, type TravelRunner } from './travel.js';

let platform: SuitePlatform;
let runner: TravelRunner;

beforeAll(async () => {
  platform = await bootPlatform('agents', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  runner = await startTravelRunner(platform);
  await waitForCatalog(platform.apiUrl, ['flight_search', 'get_weather', 'send_email']);
});
afterAll(async () => {
  await runner?.stop();
  await platform?.stop();
});

// Every tenant of these suites has connected its mail account (send_email sends from it), except
// the one that shows what happens without.
const connected = new Set<string>();
const send = async (tenant: string, conversation: string, content: string) => {
  if (tenant !== 'unconnected-tenant' && !connected.has(tenant)) {
    await connectMailAccount(platform, tenant);
    connected.add(tenant);
  }
  return api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, tenant, { content });
};
const approvals = async (tenant: string) =>
  (await api<{ approvals: ApprovalJson[] }>(platform, 'GET', '/v1/approvals', tenant)).body.approvals;

/**
 * An approved action is part of the record: the turn that approved it reports the resumed call
 * (`<callId>:resumed`) in `toolCalls`, and the history stores that call and its real result after
 * the user's message, with every tool call paired with exactly one result.
 */
async function expectApprovedResult(
  tenant: string,
  conversation: string,
  turn: TurnJson,
  callId: string,
  content: RegExp,
): Promise<void> {
  const resumedId = `${callId}:resumed`;
  const reported = turn.toolCalls.find((c) => c.callId === resumedId);
  expect(reported).toMatchObject({ name: 'send_email', status: 'success', durationMs: expect.any(Number) });
  const history = await historyOf(platform, tenant, conversation);
  const stored = storedResultOf(history, resumedId);
  expect(stored).toMatchObject({ role: 'tool', status: 'success' });
  expect(stored!.content).toMatch(content);
  const turnMessages = history.filter((m) => m.runId === turn.runId).map((m) => m.message.role);
  expect(turnMessages.slice(0, 3)).toEqual(['user', 'assistant', 'tool']);
}

/** Kills the stateful services (SIGKILL), stops the rest, flushes Redis, and starts everything again. */
async function restartEverything(): Promise<void> {
  for (const app of ['orchestrator', 'agent-pool'] as const) await platform.kill(app);
  for (const app of ['api', 'tool-runner', 'memory', 'llm-sim'] as const) await platform.stopApp(app);
  const redis = createRedis({
    url: platform.redisUrl,
    name: 'flush',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  await redis.flushdb();
  redis.disconnect();
  for (const app of ['llm-sim', 'memory', 'tool-runner', 'agent-pool', 'orchestrator', 'api'] as const)
    await platform.start(app);
  await runner.restart();
  await waitForCatalog(platform.apiUrl, ['flight_search', 'get_weather', 'send_email']);
}

describe('seed 000 section 7: flights + weather + an email that needs approval', () => {
  async function planTrip(tenant: string, conversation: string): Promise<TurnJson> {
    const first = await send(
      tenant,
      conversation,
      '[scenario:travel-trip] Find flights SFO to NYC next Friday, check the weather there, and email the team.',
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'waiting', stopReason: 'agent_waiting' });
    expect(first.body.toolCalls.map((c) => `${c.name}:${c.status}`).sort()).toEqual([
      'flight_search:success',
      'get_weather:success',
      'send_email:skipped',
    ]);
    expect(first.body.pending).toEqual([
      expect.objectContaining({
        agentName: 'send_email',
        waitingFor: 'approval',
        approval: expect.objectContaining({
          agentName: 'send_email',
          actionSummary: 'Send email to team@example.com',
          options: ['approve', 'edit', 'cancel'],
          allowModification: true,
        }),
      }),
    ]);
    return first.body;
  }

  it('stops for approval, lists it, and sends the email exactly once after "yes"', async () => {
    const tenant = 'trip-tenant';
    const { pending } = await planTrip(tenant, 'trip-1');
    const listed = await approvals(tenant);
    expect(listed).toEqual([
      expect.objectContaining({ agentName: 'send_email', conversationId: 'trip-1', source: { kind: 'user' } }),
    ]);
    expect(await runner.emails()).toEqual([]);

    const yes = await send(tenant, 'trip-1', 'yes');
    expect(yes.body.status).toBe('completed');
    expect(yes.body.response).toMatch(
      /^Completed: found flights \(.*UA.*\), the weather is .*°C.*, and the email to the team was sent \(Email sent to team@example.com/s,
    );
    const emails = await runner.emails();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ recipient: 'team@example.com', subject: 'NYC trip' });
    expect(await approvals(tenant)).toEqual([]);

    await expectApprovedResult(
      tenant,
      'trip-1',
      yes.body,
      pending[0]!.callId,
      /^Email sent to team@example.com.*message id/s,
    );

    // The next turn's request to the model carries the email's real result.
    const next = await send(tenant, 'trip-1', 'Which message id did the email get?');
    expect(next.body.status).toBe('completed');
    const request = (await simRequests(platform))
      .filter((r) => r.body.messages.some((m) => m.content === 'Which message id did the email get?'))
      .at(-1);
    const sent = request!.body.messages.find(
      (m) => m.role === 'tool' && m.tool_call_id === `${pending[0]!.callId}:resumed`,
    );
    expect(String(sent?.content)).toMatch(/^Email sent to team@example.com.*message id/s);
  });

  it('survives every service restarting (the stateful ones killed) and a Redis flush between the approval request and the "yes"', async () => {
    const tenant = 'restart-tenant';
    const { pending } = await planTrip(tenant, 'trip-2');
    await restartEverything();
    expect(await approvals(tenant)).toEqual([
      expect.objectContaining({ agentName: 'send_email', conversationId: 'trip-2' }),
    ]);
    const before = (await runner.emails()).length;
    const yes = await send(tenant, 'trip-2', 'yes');
    expect(yes.body).toMatchObject({ status: 'completed' });
    expect(yes.body.response).toContain('Email sent to team@example.com');
    expect((await runner.emails()).length).toBe(before + 1);
    await expectApprovedResult(tenant, 'trip-2', yes.body, pending[0]!.callId, /^Email sent to team@example.com/);
  });

  it('reads the mail account through ctx.credentials, and says clearly when none is connected', async () => {
    const tenant = 'unconnected-tenant';
    await planTrip(tenant, 'trip-unconnected');
    const before = (await runner.emails()).length;
    const yes = await send(tenant, 'trip-unconnected', 'yes');
    expect(yes.body.status).toBe('completed');
    expect(yes.body.response).toContain(
      'was not sent: no google account is connected. Connect your google account to let me do this.',
    );
    expect((await runner.emails()).length).toBe(before);
    // The grant reached the runner through the agent pool: the read is audited as the tool's.
    const audit = await api<{ events: Array<{ action: string; outcome: string; actor: Record<string, unknown> }> }>(
      platform,
      'GET',
      '/v1/credentials/audit',
      tenant,
    );
    expect(audit.body.events[0]).toMatchObject({
      action: 'get',
      outcome: 'not_found',
      actor: { kind: 'tool', tool: 'send_email' },
    });
  });

  it('cancels on "no": the model is told "User cancelled this action." and nothing is sent', async () => {
    const tenant = 'cancel-tenant';
    await planTrip(tenant, 'trip-3');
    const before = (await runner.emails()).length;
    const no = await send(tenant, 'trip-3', 'no');
    expect(no.body.status).toBe('completed');
    expect(no.body.response).toContain('User cancelled this action.');
    expect((await runner.emails()).length).toBe(before);
  });
});

describe('field collection across messages', () => {
  it('asks for a missing destination, takes it from the next message, and continues the loop', async () => {
    const tenant = 'fields-tenant';
    const first = await send(
      tenant,
      'flights-1',
      '[scenario:travel-missing-field] Find me flights from SFO next Friday.',
    );
    expect(first.body).toMatchObject({ status: 'waiting' });
    expect(first.body.pending[0]).toMatchObject({ agentName: 'flight_search', waitingFor: 'input' });
    expect(first.body.response).toContain('destination');

    const second = await send(tenant, 'flights-1', 'To New York, JFK is fine.');
    expect(second.body.status).toBe('completed');
    expect(second.body.response).toMatch(/^Here are your flights: .*SFO->NYC/s);
  });
});

describe('several approvals at once', () => {
  it('returns both approval requests together and resolves them by free text in the order confirmed, with an edit', async () => {
    const tenant = 'batch-tenant';
    const first = await send(tenant, 'emails-1', '[scenario:two-emails] Email Alice and Bob about the plans.');
    expect(first.body.status).toBe('waiting');
    expect(first.body.pending.map((p) => p.approval?.details['recipient'])).toEqual([
      'alice@example.com',
      'bob@example.com',
    ]);
    expect(await approvals(tenant)).toHaveLength(2);

    const before = (await runner.emails()).length;
    const reply = await send(
      tenant,
      'emails-1',
      '[scenario:two-emails] Change the subject of the second to "Plan B (updated)" and then send both.',
    );
    expect(reply.body.status).toBe('completed');
    const sent = (await runner.emails()).slice(before);
    // The reply confirmed the second (edited) first, then the first: they ran in that order.
    expect(sent.map((e) => `${e.recipient}:${e.subject}`)).toEqual([
      'bob@example.com:Plan B (updated)',
      'alice@example.com:Plan A',
    ]);
    expect(await approvals(tenant)).toEqual([]);
    // Both results are stored, in the order they ran, and both are counted.
    const [alice, bob] = first.body.pending.map((p) => p.callId);
    await expectApprovedResult(tenant, 'emails-1', reply.body, bob!, /^Email sent to bob@example.com/);
    await expectApprovedResult(tenant, 'emails-1', reply.body, alice!, /^Email sent to alice@example.com/);
    const resumed = reply.body.toolCalls.filter((c) => c.callId.endsWith(':resumed')).map((c) => c.callId);
    expect(resumed).toEqual([`${bob!}:resumed`, `${alice!}:resumed`]);
    const history = await historyOf(platform, tenant, 'emails-1');
    const edited = history.flatMap((m) => m.message.toolCalls ?? []).find((c) => c.id === `${bob!}:resumed`);
    expect(JSON.parse(edited!.arguments)).toMatchObject({ recipient: 'bob@example.com', subject: 'Plan B (updated)' });
  });

  it('resolves them one by one through the approvals API: approve, then cancel', async () => {
    const tenant = 'api-tenant';
    const asked = await send(tenant, 'emails-2', '[scenario:two-emails] Email Alice and Bob about the plans.');
    const listed = await approvals(tenant);
    const alice = listed.find((a) => a.details['recipient'] === 'alice@example.com');
    const bob = listed.find((a) => a.details['recipient'] === 'bob@example.com');
    const before = (await runner.emails()).length;

    const approved = await api<TurnJson>(platform, 'POST', `/v1/approvals/${alice!.approvalId}`, tenant, {
      decision: 'approve',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ runId: expect.any(String), status: 'completed' });
    expect((await runner.emails()).length).toBe(before + 1);
    expect((await approvals(tenant)).map((a) => a.approvalId)).toEqual([bob!.approvalId]);
    const aliceCall = asked.body.pending.find((p) => p.approval?.approvalId === alice!.approvalId)!.callId;
    await expectApprovedResult(tenant, 'emails-2', approved.body, aliceCall, /^Email sent to alice@example.com/);

    const cancelled = await api<TurnJson>(platform, 'POST', `/v1/approvals/${bob!.approvalId}`, tenant, {
      decision: 'cancel',
    });
    expect(cancelled.body.status).toBe('completed');
    expect(cancelled.body.response).toContain('User cancelled this action.');
    expect((await runner.emails()).length).toBe(before + 1);
    // Decided approvals are gone: deciding again is a 404.
    expect(
      (await api(platform, 'POST', `/v1/approvals/${bob!.approvalId}`, tenant, { decision: 'approve' })).status,
    ).toBe(404);
  });

  it('edits an approval through the API: the changed action runs', async () => {
    const tenant = 'edit-tenant';
    const asked = await send(tenant, 'emails-4', '[scenario:two-emails] Email Alice and Bob.');
    const alice = (await approvals(tenant)).find((a) => a.details['recipient'] === 'alice@example.com')!;
    const before = (await runner.emails()).length;
    const edited = await api<TurnJson>(platform, 'POST', `/v1/approvals/${alice.approvalId}`, tenant, {
      decision: 'edit',
      changes: { subject: 'Plan A, moved to Wednesday' },
    });
    expect(edited.status).toBe(200);
    expect((await runner.emails()).slice(before)).toEqual([
      expect.objectContaining({ recipient: 'alice@example.com', subject: 'Plan A, moved to Wednesday' }),
    ]);
    const aliceCall = asked.body.pending.find((p) => p.approval?.approvalId === alice.approvalId)!.callId;
    await expectApprovedResult(tenant, 'emails-4', edited.body, aliceCall, /^Email sent to alice@example.com/);
    // History keeps the arguments the action ran with: the user's edit.
    const call = (await historyOf(platform, tenant, 'emails-4'))
      .flatMap((m) => m.message.toolCalls ?? [])
      .find((c) => c.id === `${aliceCall}:resumed`);
    expect(JSON.parse(call!.arguments)).toMatchObject({ subject: 'Plan A, moved to Wednesday' });
  });

  it('rejects bad decisions with clear errors', async () => {
    const tenant = 'bad-decision-tenant';
    await send(tenant, 'emails-3', '[scenario:two-emails] Email Alice and Bob.');
    const [first] = await approvals(tenant);
    expect(
      (await api(platform, 'POST', `/v1/approvals/${first!.approvalId}`, tenant, { decision: 'maybe' })).body,
    ).toMatchObject({ error: { code: 'INVALID_BODY' } });
    expect(
      (await api(platform, 'POST', `/v1/approvals/${first!.approvalId}`, tenant, { decision: 'edit' })).body,
    ).toMatchObject({ error: { code: 'CHANGES_REQUIRED' } });
  });
});

describe('tenants', () => {
  it("never sees or decides another tenant's approvals (404, not 403)", async () => {
    await send('owner-tenant', 'private-1', '[scenario:two-emails] Email Alice and Bob.');
    const [owned] = await approvals('owner-tenant');
    expect(await approvals('intruder-tenant')).toEqual([]);
    const attempt = await api(platform, 'POST', `/v1/approvals/${owned!.approvalId}`, 'intruder-tenant', {
      decision: 'approve',
    });
    expect(attempt.status).toBe(404);
    expect(attempt.body).toMatchObject({ error: { code: 'APPROVAL_NOT_FOUND' } });
    const unknown = await api(platform, 'POST', '/v1/approvals/no-such-approval', 'intruder-tenant', {
      decision: 'approve',
    });
    // Same answer as for an id that does not exist: nothing tells the intruder the id is real.
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'APPROVAL_NOT_FOUND' } });
    // The owner's approval is untouched.
    expect((await approvals('owner-tenant')).map((a) => a.approvalId)).toContain(owned!.approvalId);
    // A message in the owner's conversation id from another tenant is another conversation.
    const other = await send('intruder-tenant', 'private-1', 'yes');
    expect(other.body.status).toBe('completed');
    expect((await approvals('owner-tenant')).map((a) => a.approvalId)).toContain(owned!.approvalId);
  });
});
