import type { Logger } from '@platform/service-kit';
import { AgentPoolStep } from '../agent-tools/agent-pool-step.js';
import { ApprovalDeciders } from '../agent-tools/approval-deciders.js';
import { PoolAgents } from '../agent-tools/pool-agents.js';
import { ReplyInterpreter } from '../agent-tools/reply-interpreter.js';
import type { OrchestratorConnections } from '../connections.js';
import type { RunRecords } from '../journal/run-records.js';
import type { RunSteps } from '../journal/run-steps.js';
import type { ConversationQueue } from '../ordering/conversation-queue.js';
import type { RunCancellation } from '../run-cancellation.js';
import type { AgentResolver } from '../tenant-agents/agent-resolver.js';
import type { CredentialGrants } from '../tool-gate/credential-grants.js';
import { ChildRuns } from './child-runs.js';
import { PlanExecutor } from './plan/plan-execute.js';
import { WaitingChildrenStep } from './waiting-children.js';
import { WaitingCommitteesStep } from './waiting-committees.js';

/**
 * The parts of a turn that wait for the user and that delegate: the agent pool's agent-tools, the
 * children waiting for the user, committees put to the user, child runs and plans. Built once per
 * process by server.ts.
 */
export interface TeamWiringDependencies {
  records: RunRecords;
  steps: RunSteps;
  queue: ConversationQueue;
  cancellation: RunCancellation;
  agents: AgentResolver;
  grants: CredentialGrants;
  connections: Pick<OrchestratorConnections, 'nc' | 'agentPool' | 'catalog'>;
  logger: Logger;
}

export interface TeamSettings {
  /** A plan subtask's deadline when it names none (DELEGATION_TIMEOUT_MS). */
  delegationTimeoutMs: number;
}

export function wireTeams(deps: TeamWiringDependencies, settings: TeamSettings) {
  const { records, steps, queue, cancellation, agents, grants, connections, logger } = deps;
  const childRuns = new ChildRuns({
    records,
    queue,
    nc: connections.nc,
    cancelRun: async (tenantId, runId) => void (await cancellation.cancel(tenantId, runId)),
    agentOfRole: (parent, role) => agents.agentOfRole(parent, role),
    logger,
  });
  const poolAgents = new PoolAgents(connections.agentPool.rpc, (tenantId, conversationId) =>
    records.markAgentsMayWait(tenantId, conversationId),
  );
  const agentPoolStep = new AgentPoolStep({
    grants,
    deciders: new ApprovalDeciders({
      runOf: (tenantId, runId) => records.get(tenantId, runId),
      approverRolesOf: (tenantId, agent) => agents.approverRolesOf(tenantId, agent),
    }),
    pool: connections.agentPool.rpc,
    waiting: {
      order: async (tenantId, runId) => {
        const run = runId ? await records.get(tenantId, runId) : undefined;
        return run
          ? { createdAt: run.createdAt.getTime(), callIds: (run.result?.pendingAgents ?? []).map((p) => p.callId) }
          : undefined;
      },
      noneLeft: (tenantId, conversationId) => records.clearAgentsMayWait(tenantId, conversationId),
    },
    catalog: connections.catalog,
    interpreter: new ReplyInterpreter(logger),
    journal: {
      load: (run) => steps.loadPipeline(run.runId, 'pending-agents'),
      save: (run, plan) => steps.recordPipeline(run, 'pending-agents', plan),
      loadDecision: (run) => steps.loadPipeline(run.runId, 'pending-agents-decision'),
      saveDecision: (run, decision) => steps.recordPipeline(run, 'pending-agents-decision', decision),
    },
    logger,
  });
  // A message first decides a committee put to the user, else answers a child run (a delegation)
  // that waits for the user, then waiting agents.
  const waitingChildren = new WaitingChildrenStep(agentPoolStep, {
    records,
    children: childRuns,
    journal: {
      load: (run) => steps.loadPipeline(run.runId, 'waiting-children'),
      save: (run, plan) => steps.recordPipeline(run, 'waiting-children', plan),
      loadDecision: (run) => steps.loadPipeline(run.runId, 'waiting-children-decision'),
      saveDecision: (run, decision) => steps.recordPipeline(run, 'waiting-children-decision', decision),
    },
    logger,
  });
  const pendingAgents = new WaitingCommitteesStep(waitingChildren, {
    decisions: poolAgents,
    records,
    journal: {
      loadDecision: (run) => steps.loadPipeline(run.runId, 'waiting-committee-decision'),
      saveDecision: (run, decision) => steps.recordPipeline(run, 'waiting-committee-decision', decision),
    },
    logger,
  });
  const plans = new PlanExecutor({
    children: childRuns,
    journal: {
      load: (run, key) => steps.loadPipeline(run.runId, key),
      save: (run, key, value) => steps.recordPipeline(run, key, value),
    },
    recordPlan: (run, view) => records.recordPlan(run, view),
    defaultSubtaskTimeoutMs: settings.delegationTimeoutMs,
    toolsOfRoles: async (run, roles) => {
      const byRole = new Map(
        await Promise.all(roles.map(async (r) => [r, await agents.profileOfRole(run, r)] as const)),
      );
      return (role, tool) => byRole.get(role)?.allowsTool(tool) ?? false;
    },
    logger,
  });
  return { childRuns, poolAgents, pendingAgents, plans };
}
