import type { orchestratorV1 } from '@platform/proto';
import { isPlatformError, type PromiseClient } from '@platform/service-kit';
import type { ExecutionOutcome, FireContext, FireExecutor } from './fire-executor.js';

export type OrchestratorClient = PromiseClient<orchestratorV1.OrchestratorServiceClient>;

const BACKPRESSURE_KINDS = new Set(['resource_exhausted', 'unavailable']);
const RETRYABLE_KINDS = new Set(['deadline_exceeded', 'internal', 'cancelled']);

/** The run a fire becomes: derived from the fire id, so every attempt of a fire is the same run. */
export function runIdOfFire(fireId: string): string {
  return `run_${fireId}`;
}

/** The message the agent reads for a fire. */
function triggerMessage(fire: FireContext): string {
  const instruction = fire.spec.action.instruction ?? '';
  const when = fire.scheduledAt.toISOString();
  switch (fire.kind) {
    case 'schedule': {
      const missed =
        fire.missedCount > 0
          ? ` This run stands for ${fire.missedCount + 1} scheduled times missed while the service was down.`
          : '';
      return `[Scheduled task, due ${when}] ${instruction}${missed}`;
    }
    case 'manual':
      return `[Task run on request, ${when}] ${instruction}`;
    case 'event': {
      const event = fire.payload as { eventId: string; source: string; type: string; data: unknown };
      return `[Event trigger: ${event.source} ${event.type}, event ${event.eventId} at ${when}] ${instruction}\nEvent data: ${JSON.stringify(event.data)}`;
    }
    case 'condition': {
      const poll = fire.payload as { tool: string; condition: string; result: unknown };
      return `[Condition trigger: ${poll.condition} became true at ${when}] ${instruction}\nResult of ${poll.tool}: ${JSON.stringify(poll.result)}`;
    }
  }
}

/**
 * The default executor: a fire becomes a message through the orchestrator's normal HandleMessage
 * pipeline, in a conversation of its own per task (history and memory carry over between fires).
 * The run id is derived from the fire id and the call always asks to attach, so a retry after a
 * lost connection or a dead replica joins the run the first attempt started instead of starting
 * another: one fire, one run.
 */
export class OrchestratorExecutor implements FireExecutor {
  constructor(
    private readonly orchestrator: OrchestratorClient,
    private readonly timeoutMs: number,
  ) {}

  async execute(fire: FireContext, signal: AbortSignal): Promise<ExecutionOutcome> {
    const runId = runIdOfFire(fire.fireId);
    try {
      const response = await this.orchestrator.handleMessage(
        {
          tenantId: fire.tenantId,
          conversationId: fire.taskId,
          content: triggerMessage(fire),
          requestId: fire.fireId,
          profile: fire.spec.action.profile ?? '',
          runId,
          stream: false,
          tier: '',
          timeZone: fire.spec.trigger.type === 'schedule' ? fire.spec.trigger.timeZone : '',
          attach: true,
          approvalId: '',
          decision: '',
          changesJson: '',
          // The run knows it was triggered: agents it starts record the task (the agent pool's source).
          source: { kind: 'trigger', taskId: fire.taskId, triggerType: fire.kind, originRunId: '' },
        },
        { deadlineMs: this.timeoutMs, signal },
      );
      const result = {
        status: response.status,
        stopReason: response.stopReason,
        response: response.response,
        turns: response.turns,
        pending: JSON.parse(response.pendingJson || '[]') as unknown,
      };
      if (response.status === 'completed') return { status: 'succeeded', runId, result };
      if (response.status === 'waiting') return { status: 'waiting_approval', runId, result };
      return {
        status: 'failed',
        code: `RUN_${response.status.toUpperCase()}`,
        message: `the run ended ${response.status} (${response.stopReason})`,
        retryable: false,
        runId,
      };
    } catch (err) {
      if (!isPlatformError(err)) throw err;
      if (BACKPRESSURE_KINDS.has(err.kind)) {
        return {
          status: 'backpressure',
          code: err.code,
          message: err.message,
          retryAfterMs: Math.max(1, err.retryAfterSeconds ?? 1) * 1000,
        };
      }
      return {
        status: 'failed',
        code: err.code,
        message: err.message,
        retryable: RETRYABLE_KINDS.has(err.kind),
        runId,
      };
    }
  }
}
