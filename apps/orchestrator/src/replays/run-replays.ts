import { RunOverrides, type TenantTiers } from '@platform/contracts';
import type { memoryV1, orchestratorV1 } from '@platform/proto';
import { errors, PlatformError, type PromiseClient } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';
import { isLive, type RunRecord, type RunReplayOf } from '../journal/run-types.js';
import type { RunReads } from '../journal/run-reads.js';
import type { RunSteps } from '../journal/run-steps.js';
import { checkModelTier } from '../tenant-agents/agent-validation.js';
import { replayRefusal } from './replay-steps.js';

export interface RunReplaysDependencies {
  records: Pick<RunReads, 'get'>;
  steps: Pick<RunSteps, 'load'>;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  tiers: TenantTiers;
  defaultTier: string;
}

/** The message fields a replay takes from its original run (with the request's changes). */
type ReplayedFields = Pick<
  orchestratorV1.HandleMessageRequest,
  'content' | 'profile' | 'agentVersion' | 'overridesJson' | 'timeZone'
>;

/** A replay checked and ready to record: its message, what the run records, and the fork of its conversation. */
export interface PreparedReplay {
  message: ReplayedFields;
  record: RunReplayOf;
  /** Forks the original's conversation before the original's user message into the replay's conversation. */
  fork(): Promise<void>;
}

/** How many messages one page of the original conversation's history reads. */
const PAGE = 1000;

/**
 * Replays of runs (docs/conversations.md, "Replaying a run"): a message whose `replay_of` names a
 * finished run of the tenant becomes that run's message again, in a new conversation forked from
 * the original's before its user message, under the agent version and model the request changes;
 * its first `replay_from_step` steps are answered from the original's journal (turn/loop.ts).
 */
export class RunReplays {
  constructor(private readonly deps: RunReplaysDependencies) {}

  /** Undefined for a message that is no replay; refuses a replay that cannot be (404, 409, 400, 403). */
  async prepare(request: orchestratorV1.HandleMessageRequest): Promise<PreparedReplay | undefined> {
    if (!request.replayOf) return undefined;
    const { tenantId } = request;
    // Another tenant's run is answered exactly like a missing one.
    const original = await this.deps.records.get(tenantId, request.replayOf);
    if (!original) throw errors.notFound(ErrorCodes.RUN_NOT_FOUND, `no run '${request.replayOf}'`);
    if (isLive(original.status))
      throw new PlatformError(
        'failed_precondition',
        ErrorCodes.RUN_NOT_FINISHED,
        `run '${original.runId}' is ${original.status}: replay it once it has finished`,
      );
    if (original.lineage || original.plan)
      throw new PlatformError(
        'failed_precondition',
        ErrorCodes.REPLAY_UNSUPPORTED,
        `run '${original.runId}' is ${original.lineage ? "a delegation's child run: replay its team's root run" : 'a plan-and-execute run'}`,
      );
    const fromStep = request.replayFromStep ?? 0;
    const refusal = replayRefusal(await this.deps.steps.load(original.runId), fromStep);
    if (refusal)
      throw errors.invalidArgument(ErrorCodes.INVALID_FROM_STEP, refusal, { details: { field: 'fromStep' } });
    const changes = this.changesOf(request);
    const atSeq = await this.messageSeq(original);
    return {
      message: {
        content: original.content,
        profile: original.agent?.id ?? original.profile,
        agentVersion: request.agentVersion || (original.agent?.version ?? 0),
        overridesJson: original.overrides || changes ? JSON.stringify({ ...original.overrides, ...changes }) : '',
        timeZone: request.timeZone || original.timeZone,
      },
      record: { runId: original.runId, fromStep },
      fork: async () => {
        // A run that opened its conversation has nothing before it: the replay's conversation starts empty.
        if (atSeq <= 1) return;
        await this.deps.memory.forkConversation({
          tenantId,
          conversationId: original.conversationId,
          atSeq: atSeq - 1,
          newConversationId: request.conversationId,
        });
      },
    };
  }

  /** The request's changes of the original's overrides (its model), checked against the sender's tier. */
  private changesOf(request: orchestratorV1.HandleMessageRequest): RunOverrides | undefined {
    if (!request.overridesJson) return undefined;
    const changes = RunOverrides.safeParse(JSON.parse(request.overridesJson));
    if (!changes.success) throw errors.invalidArgument(ErrorCodes.OVERRIDE_NOT_ALLOWED, 'the overrides are not valid');
    if (changes.data.model)
      checkModelTier(this.deps.tiers, this.deps.defaultTier, request.tier || this.deps.defaultTier, changes.data.model);
    return changes.data;
  }

  /** The seq of the original's user message in its conversation's history (the run's first message there). */
  private async messageSeq(original: RunRecord): Promise<number> {
    for (let afterSeq = 0; ;) {
      const page = await this.deps.memory.listMessages({
        tenantId: original.tenantId,
        conversationId: original.conversationId,
        afterSeq,
        limit: PAGE,
        latest: false,
        maxBytes: 0,
      });
      const own = page.messages.find((m) => m.runId === original.runId);
      if (own) return Number(own.seq);
      const last = page.messages.at(-1);
      if (!page.hasMore || !last)
        throw new PlatformError(
          'failed_precondition',
          ErrorCodes.REPLAY_UNSUPPORTED,
          `run '${original.runId}' left nothing in its conversation's history (rolled back or cancelled): there is no point to fork it from`,
        );
      afterSeq = Number(last.seq);
    }
  }
}
