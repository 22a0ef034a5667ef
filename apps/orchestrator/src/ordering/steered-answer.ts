import type { orchestratorV1 } from '@platform/proto';
import { toResponse } from '../grpc-messages.js';
import type { RunRecord, RunRecords } from '../journal/run-records.js';
import type { ConversationQueue } from './conversation-queue.js';

export interface SteeredAnswerDependencies {
  queue: Pick<ConversationQueue, 'waitForRun'>;
  records: Pick<RunRecords, 'get'>;
}

interface Waited {
  tenantId: string;
  conversationId: string;
  /** The message's own run (its id, and its wait). */
  messageRunId: string;
  own: Promise<RunRecord>;
  /** The run the message asked to join (`steer`), if it asked. */
  host?: RunRecord | undefined;
  signal: AbortSignal;
}

const steeredOf = (own: RunRecord): string | undefined =>
  own.stopReason === 'steered' && own.steers ? own.steers : undefined;

/** The run a steering message joined, answered as its own (docs/conversations.md, `steer`). */
function steered(host: RunRecord, messageRunId: string): orchestratorV1.HandleMessageResponse {
  return { ...toResponse(host), steered: true, messageRunId };
}

/**
 * What a message is answered with: its run's outcome, or, for a steering message its run in
 * flight took, that run's once it ends (`steered`). A steer that run never took (it ended first)
 * runs as its own turn, and that is the answer. The run asked to join is waited for beside the
 * message's own run: when it ends, the message's record says whether it was taken (the take
 * commits before the run's end), so the answer comes as the joined run ends.
 */
export async function answerOf(
  deps: SteeredAnswerDependencies,
  waited: Waited,
): Promise<orchestratorV1.HandleMessageResponse> {
  const { tenantId, conversationId, messageRunId, own, host, signal } = waited;
  if (host) {
    const joined = deps.queue.waitForRun(tenantId, conversationId, host.runId, signal);
    joined.catch(() => undefined);
    const first = await Promise.race([own.then((run) => ({ own: run })), joined.then((run) => ({ joined: run }))]);
    if ('joined' in first) {
      const mine = await deps.records.get(tenantId, messageRunId);
      if (mine && steeredOf(mine) === host.runId) return steered(first.joined, messageRunId);
      return answerOf(deps, { tenantId, conversationId, messageRunId, own, signal });
    }
    if (steeredOf(first.own) === host.runId) return steered(await joined, first.own.runId);
    return toResponse(first.own);
  }
  const run = await own;
  const into = steeredOf(run);
  if (!into) return toResponse(run);
  return steered(await deps.queue.waitForRun(tenantId, conversationId, into, signal), run.runId);
}
