import type { agentPoolV1, triggerV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';

const TASK_CONVERSATION = /^task_[0-9a-f-]{36}$/;

/** Who started the run an approval belongs to: a user's message, or a trigger's task. */
export interface ApprovalSource {
  kind: string;
  taskId?: string;
}

/**
 * The source of each pending approval. The agent pool records one when its caller names it;
 * approvals of triggered runs live in the task's own conversation (the trigger service runs each
 * task in a conversation named by its id), so a conversation that is a task of the tenant, as the
 * trigger service confirms, makes the source `trigger` with that task. When the trigger service
 * cannot be asked, the pool's source stands.
 */
export async function approvalSources(
  trigger: PromiseClient<triggerV1.TriggerServiceClient>,
  tenantId: string,
  entries: agentPoolV1.AgentEntry[],
): Promise<Map<string, ApprovalSource>> {
  const sources = new Map<string, ApprovalSource>();
  for (const entry of entries) sources.set(entry.entryId, { kind: entry.source?.kind || 'user', ...(entry.source?.taskId ? { taskId: entry.source.taskId } : {}) });
  const candidates = [...new Set(entries.filter((e) => !e.source?.taskId && TASK_CONVERSATION.test(e.conversationId)).map((e) => e.conversationId))];
  const tasks = new Set(
    (
      await Promise.all(
        candidates.map((taskId) =>
          trigger.getTask({ tenantId, taskId }).then(
            () => taskId,
            () => undefined,
          ),
        ),
      )
    ).filter((id): id is string => id !== undefined),
  );
  for (const entry of entries) if (tasks.has(entry.conversationId)) sources.set(entry.entryId, { kind: 'trigger', taskId: entry.conversationId });
  return sources;
}
