import { describe, expect, it } from 'vitest';
import { approvalRequestOf } from './approval-request.js';
import { AgentEntry, Approval } from './gen/agentpool/v1/agent_pool.js';

const approval = Approval.fromPartial({
  approvalId: 'ap_1',
  agentName: 'send_email',
  actionSummary: 'Send email to team@example.com',
  detailsJson: '{"to":"team@example.com","subject":"Trip"}',
  options: ['approve', 'edit', 'cancel'],
  allowModification: true,
  timeoutMinutes: 30,
});

function entry(overrides: Partial<AgentEntry> = {}): AgentEntry {
  return AgentEntry.fromPartial({ entryId: 'e_1', status: 'waiting_for_approval', approval, ...overrides });
}

describe('approvalRequestOf', () => {
  it('gives the request as clients see it, with the entry deadline in ISO 8601', () => {
    const expiresAt = new Date('2026-11-23T12:00:00.000Z');
    expect(approvalRequestOf(entry({ expiresAt }))).toEqual({
      approvalId: 'ap_1',
      agentName: 'send_email',
      actionSummary: 'Send email to team@example.com',
      details: { to: 'team@example.com', subject: 'Trip' },
      options: ['approve', 'edit', 'cancel'],
      allowModification: true,
      timeoutMinutes: 30,
      expiresAt: '2026-11-23T12:00:00.000Z',
    });
  });

  it('has a null deadline for an entry without one', () => {
    expect(approvalRequestOf(entry())?.expiresAt).toBeNull();
  });

  it('is undefined for an entry that never asked for approval', () => {
    expect(approvalRequestOf(entry({ approval: undefined }))).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['malformed', '{"to":'],
    ['an array', '["a","b"]'],
    ['a string', '"text"'],
    ['null', 'null'],
  ])('reads details that are %s as an empty object', (_, detailsJson) => {
    expect(approvalRequestOf(entry({ approval: { ...approval, detailsJson } }))?.details).toEqual({});
  });
});
