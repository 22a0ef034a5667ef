import type { ModelPort, PendingAgent } from '@platform/agent-loop';
import { createLogger } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../journal/run-records.js';
import { claimedRun, finishedChild } from '../test-support/run-fixtures.js';
import { askUser } from './committee-user.js';
import type { PendingAgentDecision, PendingAgentStep } from '../agent-tools/pending-agents.js';
import { WaitingCommitteesStep } from './waiting-committees.js';

const APPROVAL_ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const logger = createLogger({ service: 'test', level: 'silent' });
const model = {} as ModelPort;

function waitingRun(expiresAt: number, approvalId = APPROVAL_ID): RunRecord {
  const outcome = askUser('ask_committee_estimates', {
    kind: 'committee_decision',
    approvalId,
    committee: 'estimates',
    question: 'How many chairs?',
    options: [
      { role: 'a', answer: '100', value: 100, confidence: null },
      { role: 'b', answer: '120', value: 120, confidence: null },
    ],
    conflict: null,
    members: [],
    expiresAt: new Date(expiresAt).toISOString(),
  });
  if (outcome.status !== 'waiting') throw new Error('not waiting');
  const pending: PendingAgent = { callId: 'call-7', ...outcome.pending };
  const run = finishedChild(
    { runId: 'run-0', conversationId: 'c1', profile: 'lead', content: 'ask' },
    'waiting',
    outcome.content,
  );
  return { ...run, result: { ...run.result!, stopReason: 'agent_waiting', pendingAgents: [pending] } };
}

/** The agent pool's side: each request takes one decision; `refuse` is the pool's answer when it no longer waits. */
function poolDecisions(refuse?: { code: string; message: string }) {
  const decided: Array<{ approvalId: string; decision: unknown }> = [];
  return {
    decided,
    decide: (_tenantId: string, approvalId: string, decision: unknown) => (
      decided.push({ approvalId, decision }),
      Promise.resolve(refuse)
    ),
  };
}

function setup(previous: RunRecord | undefined, refuse?: { code: string; message: string }) {
  const journal = new Map<string, unknown>();
  const decisions = poolDecisions(refuse);
  const inner: PendingAgentStep & { calls: number } = {
    calls: 0,
    beforeLoop: () => ((inner.calls += 1), Promise.resolve({ kind: 'run_loop' })),
  };
  const step = new WaitingCommitteesStep(inner, {
    decisions,
    records: { previousRun: () => Promise.resolve(previous) },
    journal: {
      loadDecision: (run) => Promise.resolve(journal.get(run.runId)),
      saveDecision: (run, d) => Promise.resolve(void journal.set(run.runId, d)),
    },
    now: () => 5_000,
    logger,
  });
  return { step, inner, journal, decisions };
}

describe('the waiting-committee step', () => {
  it("turns the user's reply into the committee call's resumed result, journaled for a resume", async () => {
    const { step, inner, journal, decisions } = setup(waitingRun(10_000));
    const run = claimedRun('lead', 'b', { agentsMayWait: true });
    const decision = await step.beforeLoop(run, model);
    expect(inner.calls).toBe(0);
    // The pool holds the request: the reply is recorded there as its one decision.
    expect(decisions.decided).toEqual([{ approvalId: APPROVAL_ID, decision: { reply: 'b' } }]);
    expect(decision.kind).toBe('run_loop_with_agent_results');
    const agents = (decision as Extract<PendingAgentDecision, { kind: 'run_loop_with_agent_results' }>).agents;
    expect(agents.records).toEqual([
      expect.objectContaining({ callId: 'call-7:resumed', name: 'ask_committee_estimates', status: 'success' }),
    ]);
    const result = agents.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(result.content)).toMatchObject({ answer: '120', value: 120, decidedBy: 'user', winners: ['b'] });
    // A resumed attempt reports the journaled decision, whatever the records say now.
    const again = setup(undefined);
    again.journal.set(run.runId, journal.get(run.runId));
    expect(await again.step.beforeLoop({ ...run, attempts: 2 }, model)).toEqual(decision);
  });

  it('leaves an expired request to its expiry notice, and other messages to the next steps', async () => {
    const late = setup(waitingRun(1_000));
    const expired = await late.step.beforeLoop(claimedRun('lead', 'a', { agentsMayWait: true }), model);
    // The pool expired it at its time; its notice gives the call its COMMITTEE_DECISION_EXPIRED result, not this reply.
    expect(expired).toMatchObject({ kind: 'answer', pending: [], agents: { records: [] } });
    expect((expired as { response: string }).response).toContain('expired');
    expect(late.decisions.decided).toEqual([]);

    const unmarked = setup(waitingRun(10_000));
    expect(await unmarked.step.beforeLoop(claimedRun('lead', 'a'), model)).toEqual({ kind: 'run_loop' });
    expect(unmarked.inner.calls).toBe(1);
    const answered = setup(
      finishedChild({ runId: 'run-0', conversationId: 'c1', profile: 'lead', content: 'x' }, 'completed', 'done'),
    );
    expect(await answered.step.beforeLoop(claimedRun('lead', 'a', { agentsMayWait: true }), model)).toEqual({
      kind: 'run_loop',
    });
  });

  it('applies a decision through the approvals API once; a request decided already gives no second result', async () => {
    const approval = { approvalId: APPROVAL_ID, decision: 'edit' as const, changes: { choice: 'a' } };
    const api = setup(waitingRun(10_000));
    const chosen = await api.step.beforeLoop(
      claimedRun('lead', 'Approved with changes', { agentsMayWait: true, approval }),
      model,
    );
    expect(api.decisions.decided).toEqual([
      { approvalId: APPROVAL_ID, decision: { decision: 'edit', changes: { choice: 'a' } } },
    ]);
    const result = (
      chosen as Extract<PendingAgentDecision, { kind: 'run_loop_with_agent_results' }>
    ).agents.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(result.content)).toMatchObject({ answer: '100', decidedBy: 'user', winners: ['a'] });

    const twice = setup(waitingRun(10_000), { code: 'AGENT_NOT_WAITING', message: 'already completed' });
    const refused = await twice.step.beforeLoop(
      claimedRun('lead', 'Approved with changes', { agentsMayWait: true, approval }),
      model,
    );
    expect(refused).toMatchObject({ kind: 'answer', pending: [], agents: { records: [] } });
    expect((refused as { response: string }).response).toContain('already made');

    // A decision that chooses nothing leaves the request waiting, untouched.
    const empty = setup(waitingRun(10_000));
    const none = await empty.step.beforeLoop(
      claimedRun('lead', 'Approved with changes', {
        agentsMayWait: true,
        approval: { ...approval, changes: { seat: 'window' } },
      }),
      model,
    );
    expect(none).toMatchObject({ kind: 'answer', pending: [expect.objectContaining({ callId: 'call-7' })] });
    expect(empty.decisions.decided).toEqual([]);
  });

  it('cancels the request in the pool when the user cancels', async () => {
    const { step, decisions } = setup(waitingRun(10_000));
    const cancelled = await step.beforeLoop(claimedRun('lead', 'cancel', { agentsMayWait: true }), model);
    expect(decisions.decided).toEqual([{ approvalId: APPROVAL_ID, decision: { decision: 'cancel' } }]);
    expect(
      (cancelled as Extract<PendingAgentDecision, { kind: 'run_loop_with_agent_results' }>).agents.records[0],
    ).toMatchObject({ status: 'cancelled', errorCode: 'USER_CANCELLED' });
  });

  it('decides a request asked before the pool held them (no pool id) without the pool', async () => {
    const { step, decisions } = setup(waitingRun(10_000, 'run-0:call-7'));
    const decision = await step.beforeLoop(claimedRun('lead', 'a', { agentsMayWait: true }), model);
    expect(decisions.decided).toEqual([]);
    expect(decision.kind).toBe('run_loop_with_agent_results');
  });
});
