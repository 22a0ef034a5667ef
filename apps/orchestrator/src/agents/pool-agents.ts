import type { ToolCallContext, ToolCallRequest, ToolOutcome } from '@platform/agent-loop';
import type { agentPoolV1 } from '@platform/proto';
import { isPlatformError, type PromiseClient } from '@platform/service-kit';
import type { RunSource } from '../journal/run-records.js';
import { entryOutcome } from './entry-outcome.js';

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
  async start(scope: { tenantId: string; conversationId: string; source?: RunSource }, call: ToolCallRequest, context: ToolCallContext, approvalGate = false, credentialGrant?: string): Promise<ToolOutcome> {
    try {
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
          approvalGate,
          ...(credentialGrant ? { credentialGrant } : {}),
        },
        { deadlineMs: Math.max(1, context.deadlineAt - Date.now()), signal: context.signal },
      );
      if (!entry) return { status: 'failed', content: `the agent pool returned no entry for ${call.name}.`, errorCode: 'AGENT_POOL_FAILED' };
      return entryOutcome(entry);
    } catch (err) {
      if (!isPlatformError(err)) throw err;
      const status = err.kind === 'deadline_exceeded' ? 'timeout' : err.kind === 'cancelled' ? 'cancelled' : 'failed';
      return { status, content: err.message, errorCode: err.code };
    }
  }
}
