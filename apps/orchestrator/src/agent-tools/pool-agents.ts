import type { ToolCallContext, ToolCallRequest, ToolOutcome } from '@platform/agent-loop';
import type { agentPoolV1 } from '@platform/proto';
import { isPlatformError, type PromiseClient } from '@platform/service-kit';
import type { RunSource } from '../journal/run-records.js';
import { entryOutcome } from './entry-outcome.js';

/** How long recording a user's decision may take (nobody runs: one row update). */
const DECIDE_DEADLINE_MS = 10_000;

export type AgentPoolClient = PromiseClient<agentPoolV1.AgentPoolServiceClient>;

/** Starts agent-tool calls, and calls of tools that require approval, in the agent pool, which keeps them while they wait. */
export class PoolAgents {
  constructor(
    private readonly pool: AgentPoolClient,
    /** Notes that agents may wait in a conversation, before one starts (so its next message asks the pool). */
    private readonly mayWait: (tenantId: string, conversationId: string) => Promise<void>,
  ) {}

  /**
   * Runs the agent's first step; a call that cannot complete now waits in the pool. With
   * `approvalGate`, the call is a plain tool's that requires approval: the pool runs nothing
   * and it waits for the user's approval. `credentialGrant` goes to the agent with its step (the
   * pool never stores it; later steps get fresh grants from the pending-agent step).
   */
  async start(
    scope: { tenantId: string; conversationId: string; source?: RunSource },
    call: ToolCallRequest,
    context: ToolCallContext,
    approvalGate = false,
    credentialGrant?: string,
  ): Promise<ToolOutcome> {
    try {
      const entry = await this.startEntry(scope, call, context, {
        approvalGate,
        userDecision: undefined,
        ...(credentialGrant ? { credentialGrant } : {}),
      });
      if (!entry)
        return {
          status: 'failed',
          content: `the agent pool returned no entry for ${call.name}.`,
          errorCode: 'AGENT_POOL_FAILED',
        };
      return entryOutcome(entry);
    } catch (err) {
      if (!isPlatformError(err)) throw err;
      const status = err.kind === 'deadline_exceeded' ? 'timeout' : err.kind === 'cancelled' ? 'cancelled' : 'failed';
      return { status, content: err.message, errorCode: err.code };
    }
  }

  /**
   * Registers a decision the platform asks the user for itself (a committee with strategy
   * `user`) as an approval request in the pool, so the approvals API lists and decides it and the
   * pool expires it at its time. A repeated call id (a resumed run) finds the same request.
   */
  async askUser(
    scope: { tenantId: string; conversationId: string; source?: RunSource },
    call: ToolCallRequest,
    context: ToolCallContext,
    decision: agentPoolV1.UserDecision,
  ): Promise<{ approvalId: string; expiresAt: string } | ToolOutcome> {
    try {
      const entry = await this.startEntry(scope, call, context, { approvalGate: false, userDecision: decision });
      if (!entry?.approval || !entry.expiresAt)
        return {
          status: 'failed',
          content: `the agent pool did not keep the decision for ${call.name}.`,
          errorCode: 'AGENT_POOL_FAILED',
        };
      return { approvalId: entry.approval.approvalId, expiresAt: entry.expiresAt.toISOString() };
    } catch (err) {
      if (!isPlatformError(err)) throw err;
      return { status: 'failed', content: err.message, errorCode: err.code };
    }
  }

  /** One StartAgent call for the model's call, with what kind of entry it starts. */
  private async startEntry(
    scope: { tenantId: string; conversationId: string; source?: RunSource },
    call: ToolCallRequest,
    context: ToolCallContext,
    kind: Pick<agentPoolV1.StartAgentRequest, 'approvalGate' | 'userDecision' | 'credentialGrant'>,
  ): Promise<agentPoolV1.AgentEntry | undefined> {
    await this.mayWait(scope.tenantId, scope.conversationId);
    const { entry } = await this.pool.startAgent(
      {
        tenantId: scope.tenantId,
        conversationId: scope.conversationId,
        runId: context.runId,
        callId: call.id,
        agentName: call.name,
        argumentsJson: JSON.stringify(call.arguments),
        // The pool records who started the agent: the trigger task whose fire sent the run's message, or the user.
        source: scope.source ? { kind: 'trigger', taskId: scope.source.taskId } : { kind: 'user', taskId: '' },
        ...kind,
      },
      { deadlineMs: Math.max(1, context.deadlineAt - Date.now()), signal: context.signal },
    );
    return entry;
  }

  /**
   * Records the user's decision on a request `askUser` registered. Undefined when recorded; the
   * pool's error when it was no longer waiting (decided already, expired, cancelled).
   */
  async decide(
    tenantId: string,
    approvalId: string,
    decision: { decision?: 'edit' | 'cancel'; changes?: Record<string, unknown>; reply?: string },
  ): Promise<{ code: string; message: string } | undefined> {
    try {
      await this.pool.resolveApproval(
        {
          tenantId,
          approvalId,
          decision: decision.decision ?? '',
          changesJson: decision.changes ? JSON.stringify(decision.changes) : '',
          reply: decision.reply ?? '',
        },
        { deadlineMs: DECIDE_DEADLINE_MS },
      );
      return undefined;
    } catch (err) {
      if (!isPlatformError(err) || (err.kind !== 'failed_precondition' && err.kind !== 'not_found')) throw err;
      return { code: err.code, message: err.message };
    }
  }
}
