import { describe, expect, it } from 'vitest';
import {
  askUser,
  committeeRequestOf,
  decideByUser,
  userDecisionOf,
  type CommitteeDecisionRequest,
} from './committee-user.js';

const request: CommitteeDecisionRequest = {
  kind: 'committee_decision',
  approvalId: 'run-1:call-1',
  committee: 'estimates',
  question: 'How many chairs?',
  options: [
    { role: 'estimator-a', answer: 'ANSWER: 100', value: 100, confidence: 0.6 },
    { role: 'estimator-c', answer: 'ANSWER: 120', value: 120, confidence: 0.9 },
  ],
  conflict: { min: 100, max: 120, spread: 1 / 6, tolerance: 0.05, outliers: ['estimator-c'] },
  members: [{ role: 'estimator-a' }, { role: 'estimator-c' }],
  expiresAt: new Date(10_000).toISOString(),
};
const content = (outcome: ReturnType<typeof decideByUser>) => JSON.parse(outcome.content) as Record<string, unknown>;

describe('a committee decided by the user', () => {
  it('asks with a structured approval request that reads back from the pending call', () => {
    const outcome = askUser('ask_committee_estimates', request);
    expect(outcome.status).toBe('waiting');
    if (outcome.status !== 'waiting') return;
    expect(outcome.pending).toMatchObject({ agentName: 'ask_committee_estimates', waitingFor: 'approval' });
    expect(outcome.pending.prompt).toContain('its numbers disagree (from 100 to 120)');
    expect(committeeRequestOf({ callId: 'c', ...outcome.pending })).toEqual(request);
    expect(
      committeeRequestOf({
        callId: 'c',
        agentName: 'send_email',
        waitingFor: 'approval',
        prompt: 'ok?',
        approval: { approvalId: 'x' },
      }),
    ).toBeUndefined();
  });

  it('takes the member the reply names, or the answer the user typed, as the one result', () => {
    expect(content(decideByUser(request, { text: 'Estimator-C.' }, 0))).toMatchObject({
      answer: 'ANSWER: 120',
      value: 120,
      decidedBy: 'user',
      choice: 'member',
      winners: ['estimator-c'],
    });
    expect(content(decideByUser(request, { text: 'go with estimator-a please' }, 0))).toMatchObject({
      value: 100,
      winners: ['estimator-a'],
    });
    expect(content(decideByUser(request, { text: '110' }, 0))).toMatchObject({
      answer: '110',
      value: 110,
      choice: 'typed',
      winners: [],
    });
    // Naming both is no choice of a member: the text is the user's own answer.
    expect(content(decideByUser(request, { text: 'estimator-a and estimator-c are both wrong' }, 0))).toMatchObject({
      choice: 'typed',
    });
    const viaApi = decideByUser(
      request,
      {
        text: '',
        approval: { approvalId: request.approvalId, decision: 'approve', changes: { choice: 'estimator-a' } },
      },
      0,
    );
    expect(content(viaApi)).toMatchObject({ winners: ['estimator-a'], decidedBy: 'user' });
  });

  it('cancels on "cancel", and answers a reply after the expiry with a timeout', () => {
    expect(decideByUser(request, { text: 'cancel' }, 0)).toMatchObject({
      status: 'cancelled',
      errorCode: 'USER_CANCELLED',
    });
    expect(decideByUser(request, { text: 'estimator-a' }, 10_001)).toMatchObject({
      status: 'timeout',
      errorCode: 'COMMITTEE_DECISION_EXPIRED',
    });
    expect(decideByUser(request, { text: '  ' }, 0)).toMatchObject({ status: 'invalid' });
  });

  it('is kept by the agent pool as an approval whose details are the question, the answers and the conflict', () => {
    const { kind: _kind, approvalId: _id, expiresAt: _at, ...asked } = request;
    const decision = userDecisionOf(asked, 60_000);
    expect(decision).toMatchObject({
      actionSummary: "Choose the estimates committee's answer to: How many chairs?",
      expiresInMs: 60_000,
    });
    expect(decision.prompt).toContain('estimator-a: ANSWER: 100; estimator-c: ANSWER: 120');
    expect(JSON.parse(decision.detailsJson)).toEqual({ kind: 'committee_decision', ...asked });
    expect(userDecisionOf({ ...asked, question: 'x'.repeat(500) }, 1).actionSummary.length).toBe(200);
  });
});
