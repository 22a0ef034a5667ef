import { describe, expect, it } from 'vitest';
import { approvalRefusal } from './approval-deciders.js';

describe('approvalRefusal (who decides an approval)', () => {
  it("lets the run's own user decide, and refuses another member", () => {
    expect(approvalRefusal({ role: 'member', subject: 'alice' }, { runSubject: 'alice' })).toBeUndefined();
    expect(approvalRefusal({ role: 'member', subject: 'bob' }, { runSubject: 'alice' })).toEqual({
      reason: 'not_the_runs_user',
      requiredRole: 'admin',
    });
    expect(approvalRefusal({ role: 'developer', subject: 'bob' }, { runSubject: 'alice' })?.reason).toBe(
      'not_the_runs_user',
    );
  });

  it('lets anyone of the tenant decide for a run that recorded no end user, and an admin always', () => {
    expect(approvalRefusal({ role: 'member', subject: 'bob' }, {})).toBeUndefined();
    expect(approvalRefusal({ role: 'admin', subject: 'carol' }, { runSubject: 'alice' })).toBeUndefined();
    expect(approvalRefusal({ role: 'admin' }, { runSubject: 'alice', approverRoles: ['developer'] })).toBeUndefined();
  });

  it("leaves an agent's approvals to its approver roles (or higher) only, the run's user included", () => {
    const owner = { runSubject: 'alice', approverRoles: ['developer'] as const };
    expect(approvalRefusal({ role: 'member', subject: 'alice' }, owner)).toEqual({
      reason: 'approver_role',
      requiredRole: 'developer',
      approverRoles: ['developer'],
    });
    expect(approvalRefusal({ role: 'developer', subject: 'dave' }, owner)).toBeUndefined();
    expect(
      approvalRefusal({ role: 'viewer', subject: 'alice' }, { approverRoles: ['admin', 'member'] })?.requiredRole,
    ).toBe('member');
  });
});
