import { AgentSpec, approvalRefusal, BUILT_IN_AGENT_PREFIX, type TenantRole } from '@platform/contracts';
import type { agentsV1, orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { Principal } from '../auth.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

export interface DeciderLookups {
  /** Reads the run that asked (its end user, its agent version). Absent: nothing is known of the run. */
  orchestrator?: PromiseClient<orchestratorV1.OrchestratorServiceClient> | undefined;
  /** Reads the agent version the run runs under, for its `approverRoles`. Absent: agents name none. */
  agents?: PromiseClient<agentsV1.AgentServiceClient> | undefined;
}

/** The roles an agent version names as its approvers, if it names any. */
async function approverRolesOf(
  lookups: DeciderLookups,
  principal: Principal,
  run: orchestratorV1.GetRunResponse,
): Promise<readonly TenantRole[] | undefined> {
  const agentVersion = run.agentVersion ?? 0;
  if (!lookups.agents || !run.agentId || run.agentId.startsWith(BUILT_IN_AGENT_PREFIX) || agentVersion <= 0)
    return undefined;
  const { version } = await lookups.agents.getAgentVersion({
    caller: { tenantId: principal.tenantId, subject: principal.subject ?? '', tier: principal.tier ?? '' },
    agent: run.agentId,
    version: agentVersion,
  });
  if (!version?.specJson) return undefined;
  const spec = AgentSpec.safeParse(JSON.parse(version.specJson));
  return spec.success ? spec.data.approverRoles : undefined;
}

/**
 * Who may decide an approval (docs/access.md#approvals): the rule of libs/contracts
 * `approvalRefusal`, over the run that asked (its end user, its agent version's `approverRoles`).
 * Anyone it refuses: 403 FORBIDDEN_ROLE.
 */
export async function checkDecider(principal: Principal, runId: string, lookups: DeciderLookups): Promise<void> {
  if (principal.role === 'admin') return;
  const run =
    runId && lookups.orchestrator
      ? await lookups.orchestrator.getRun({ tenantId: principal.tenantId, runId })
      : undefined;
  const approverRoles = run ? await approverRolesOf(lookups, principal, run) : undefined;
  const refusal = approvalRefusal(principal, { runSubject: run?.subject, approverRoles });
  if (!refusal) return;
  if (refusal.reason === 'approver_role')
    throw new HttpError(
      403,
      ApiErrorCodes.FORBIDDEN_ROLE,
      `this agent's approvals are decided by ${refusal.approverRoles.join(' or ')} (or an admin); the caller has "${principal.role}"`,
      { requiredRole: refusal.requiredRole, role: principal.role, approverRoles: refusal.approverRoles },
    );
  throw new HttpError(
    403,
    ApiErrorCodes.FORBIDDEN_ROLE,
    "this approval belongs to another user's run: only that user or a tenant admin may decide it",
    { requiredRole: 'admin', role: principal.role, reason: 'not_the_runs_user' },
  );
}
