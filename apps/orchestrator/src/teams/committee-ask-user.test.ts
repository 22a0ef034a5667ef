import type { ToolCallContext } from '@platform/agent-loop';
import { describe, expect, it } from 'vitest';
import { CommitteeSpec } from '../profiles.js';
import { claimedRun, finishedChild } from '../test-support/run-fixtures.js';
import type { ChildRuns, ChildTask } from './child-runs.js';
import { CommitteeTool, type CommitteeScope } from './committee.js';
import { committeeRequestOf } from './committee-user.js';

const spec = CommitteeSpec.parse({
  name: 'decide',
  description: 'estimates.',
  roles: ['a', 'b'],
  strategy: 'user',
  decisionTimeoutMs: 90_000,
});
const context: ToolCallContext = {
  runId: 'run-1',
  deadlineAt: Date.now() + 60_000,
  signal: new AbortController().signal,
};
const ANSWERS: Record<string, string> = { a: 'ANSWER: 100', b: 'ANSWER: 120' };

function committee(userDecisions: CommitteeScope['userDecisions']) {
  const children = {
    run: (task: ChildTask) =>
      Promise.resolve(
        finishedChild(
          { runId: `child-${task.role}`, conversationId: 'delegation:x', profile: task.role, content: task.task },
          'completed',
          ANSWERS[task.role]!,
        ),
      ),
    markWaiting: () => Promise.resolve(),
  } as unknown as ChildRuns;
  return new CommitteeTool(children, {
    parent: claimedRun('lead'),
    events: () => undefined,
    handingOver: () => false,
    refusal: () => undefined,
    defaultTimeoutMs: 60_000,
    userDecisions,
  });
}

describe('a user committee asking the user', () => {
  it('registers the decision with the agent pool and waits with the approval id and expiry the pool gave', async () => {
    const asked: Array<{ callId: string; expiresInMs: number; details: unknown }> = [];
    const tool = committee({
      askUser: (_scope, call, _context, decision) => {
        asked.push({ callId: call.id, expiresInMs: decision.expiresInMs, details: JSON.parse(decision.detailsJson) });
        return Promise.resolve({
          approvalId: '0b5c7a1e-0000-4000-8000-000000000001',
          expiresAt: '2030-01-01T00:00:00.000Z',
        });
      },
    });
    const outcome = await tool.ask(
      spec,
      { id: 'call-9', name: 'ask_committee_decide', arguments: { question: 'How many?' } },
      context,
    );
    expect(outcome.status).toBe('waiting');
    if (outcome.status !== 'waiting') return;
    expect(committeeRequestOf({ callId: 'call-9', ...outcome.pending })).toMatchObject({
      approvalId: '0b5c7a1e-0000-4000-8000-000000000001',
      expiresAt: '2030-01-01T00:00:00.000Z',
      options: [expect.objectContaining({ role: 'a', value: 100 }), expect.objectContaining({ role: 'b', value: 120 })],
      conflict: expect.objectContaining({ min: 100, max: 120 }),
    });
    expect(asked).toEqual([
      {
        callId: 'call-9',
        expiresInMs: 90_000,
        details: expect.objectContaining({ kind: 'committee_decision', question: 'How many?' }),
      },
    ]);
  });

  it('fails the call clearly when the pool cannot keep the decision, or there is no pool', async () => {
    const refused = committee({
      askUser: () => Promise.resolve({ status: 'failed', content: 'too many agents', errorCode: 'TOO_MANY_AGENTS' }),
    });
    expect(
      await refused.ask(
        spec,
        { id: 'call-1', name: 'ask_committee_decide', arguments: { question: 'How many?' } },
        context,
      ),
    ).toMatchObject({ status: 'failed', errorCode: 'TOO_MANY_AGENTS' });
    expect(
      await committee(undefined).ask(
        spec,
        { id: 'call-2', name: 'ask_committee_decide', arguments: { question: 'How many?' } },
        context,
      ),
    ).toMatchObject({ status: 'failed', errorCode: 'COMMITTEE_FAILED' });
  });
});
