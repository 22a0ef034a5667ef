import { randomUUID } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import type { RunProtocol } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { DEPENDENCY_UNAVAILABLE, isPlatformError, type Logger, type PromiseClient } from '@platform/service-kit';
import { ApiErrorCodes } from '../error-codes.js';

/** Fields a turn may leave out: the approval ones (decisions on approval requests only). */
type ApprovalField = 'approvalId' | 'decision' | 'changesJson' | 'source';

/**
 * A turn to run (the agent fields are optional in the contract: unset, the orchestrator's defaults).
 * Every adapter names the protocol it speaks: the run records it (docs/protocols.md).
 */
export type TurnRequest = Omit<orchestratorV1.HandleMessageRequest, 'runId' | 'attach' | 'protocol' | ApprovalField> &
  Partial<Pick<orchestratorV1.HandleMessageRequest, ApprovalField>> & { protocol: RunProtocol };

const APPROVAL_DEFAULTS = {
  approvalId: '',
  decision: '',
  changesJson: '',
  source: undefined,
} satisfies Pick<orchestratorV1.HandleMessageRequest, ApprovalField>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The orchestrator's header naming the run a keyed message is answered with (before the run ends). */
const RUN_ID_HEADER = 'x-run-id';

/** Calls `onRunId` with the run a keyed message's headers name. */
function runIdHeaderReader(onRunId: ((runId: string) => void) | undefined): { onHeaders?: (h: Metadata) => void } {
  if (!onRunId) return {};
  return {
    onHeaders: (headers) => {
      const value = headers.get(RUN_ID_HEADER)[0];
      if (typeof value === 'string' && value) onRunId(value);
    },
  };
}

/**
 * The orchestrator is gone or going (it died, restarts, or shuts down and takes no new runs), or it
 * lost its own database mid-call (DEPENDENCY_UNAVAILABLE: the run may or may not be recorded), as
 * opposed to an answer from it: the turn is sent again under the same run id, to whichever replica
 * answers, which attaches to the run if it was recorded and records it otherwise. So a message is
 * never run twice, and one that was recorded is answered.
 */
function isLostConnection(error: unknown): boolean {
  return (
    isPlatformError(error) &&
    error.kind === 'unavailable' &&
    (error.code === ApiErrorCodes.UNAVAILABLE ||
      error.code === 'SHUTTING_DOWN' ||
      error.code === DEPENDENCY_UNAVAILABLE)
  );
}

/** Run ids the api issues; they name the run's event subject, so they stay subject-safe. */
export function newRunId(): string {
  return `run_${randomUUID()}`;
}

/**
 * Sends a message as a run with an id chosen here, and waits for its result. When the
 * orchestrator dies mid-turn the call fails with a lost connection; the runner then attaches to
 * the same run id again (on the restarted or another replica) until the run's result arrives or
 * the deadline passes, so the caller still gets the answer of the resumed run.
 */
export class TurnRunner {
  constructor(
    private readonly orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>,
    private readonly logger: Logger,
  ) {}

  async run(
    request: TurnRequest,
    runId: string,
    deadlineAt: number,
    signal?: AbortSignal,
    /** A keyed message (`idempotencyKey`): told which run answers it, `runId` or an earlier send's, once known. */
    onRunId?: (runId: string) => void,
  ): Promise<orchestratorV1.HandleMessageResponse> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.orchestrator.handleMessage(
          { ...APPROVAL_DEFAULTS, ...request, runId, attach: attempt > 0 },
          {
            deadlineMs: Math.max(1, deadlineAt - Date.now()),
            ...(signal ? { signal } : {}),
            ...runIdHeaderReader(onRunId),
          },
        );
      } catch (err) {
        const backoffMs = Math.min(2_000, 100 * 2 ** attempt);
        if (!isLostConnection(err) || signal?.aborted || Date.now() + backoffMs >= deadlineAt) throw err;
        this.logger.warn(
          { runId, attempt: attempt + 1 },
          'lost the orchestrator during a turn; attaching to the run again',
        );
        await sleep(backoffMs);
      }
    }
  }
}
