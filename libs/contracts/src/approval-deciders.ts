import { roleAtLeast, TENANT_ROLES, type TenantRole } from './tenant-roles.js';

/** Who is deciding: the role and end user of the token or key that sent the decision. */
export interface ApprovalCaller {
  role: TenantRole;
  subject?: string | undefined;
}

/** What the approval belongs to: the run that asked (its end user) and its agent version's approvers. */
export interface ApprovalOwner {
  /** The run's end user; absent for a run that recorded none (a trigger's). */
  runSubject?: string | undefined;
  /** The roles the run's agent version names in `approverRoles`; absent or empty: none named. */
  approverRoles?: readonly TenantRole[] | undefined;
}

/** Why a caller may not decide an approval, with what would have been needed. */
export type ApprovalRefusal =
  | { reason: 'approver_role'; requiredRole: TenantRole; approverRoles: TenantRole[] }
  | { reason: 'not_the_runs_user'; requiredRole: 'admin' };

/**
 * The one rule for who decides an approval (docs/access.md#approvals), used by the approvals API
 * and by a reply in the conversation alike: a tenant admin always; when the agent names
 * `approverRoles`, a caller holding one of them (or a higher role) and nobody else; otherwise the
 * end user whose run asked, or anyone of the tenant when the run recorded no end user.
 * Undefined: the caller may decide.
 */
export function approvalRefusal(caller: ApprovalCaller, owner: ApprovalOwner): ApprovalRefusal | undefined {
  if (caller.role === 'admin') return undefined;
  const approvers = owner.approverRoles ?? [];
  if (approvers.length > 0) {
    if (approvers.some((role) => roleAtLeast(caller.role, role))) return undefined;
    const lowest = TENANT_ROLES.find((role) => approvers.includes(role))!;
    return { reason: 'approver_role', requiredRole: lowest, approverRoles: [...approvers] };
  }
  if (!owner.runSubject || owner.runSubject === caller.subject) return undefined;
  return { reason: 'not_the_runs_user', requiredRole: 'admin' };
}
