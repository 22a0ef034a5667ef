import { MultitaskPolicy } from '@platform/contracts';
import { errors, PlatformError } from '@platform/service-kit';
import type { RunRecord } from '../journal/run-records.js';
import type { RunStops } from '../journal/run-stops.js';
import type { RunCancellation } from '../run-cancellation.js';
import { ErrorCodes } from '../error-codes.js';

export interface MultitaskDependencies {
  stops: Pick<RunStops, 'inFlight'>;
  cancellation: Pick<RunCancellation, 'interrupt' | 'rollback' | 'steer'>;
}

interface Scope {
  tenantId: string;
  conversationId: string;
}

/** A message's `multitask` (empty: the agent's default, else `enqueue`), refused when it is not a policy. */
export function multitaskPolicyOf(
  requested: string | undefined,
  agentDefault: MultitaskPolicy | undefined,
): MultitaskPolicy {
  if (!requested) return agentDefault ?? 'enqueue';
  const parsed = MultitaskPolicy.safeParse(requested);
  if (!parsed.success)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_MULTITASK,
      `multitask '${requested}' is not one of ${MultitaskPolicy.options.join(', ')}`,
      { details: { field: 'multitask' } },
    );
  return parsed.data;
}

/**
 * What a message does about its conversation's run in flight (docs/conversations.md, "Sending
 * while a run is in flight"), in two halves around its admission: `before` looks the run up and
 * refuses the message for `reject`; `after` (once the message is recorded, so a crash between the
 * two leaves it queued: an `enqueue`) asks the run to stop for `interrupt` and `rollback`, and to
 * take the message before its next model call for `steer`. A run waiting for the user is not in
 * flight: the message answers it, whatever the policy.
 */
export class MultitaskAdmission {
  constructor(private readonly deps: MultitaskDependencies) {}

  /** The run in flight the policy acts on (undefined: none, or `enqueue`); throws RUN_IN_PROGRESS for `reject`. */
  async before(policy: MultitaskPolicy, scope: Scope): Promise<RunRecord | undefined> {
    if (policy === 'enqueue') return undefined;
    const inFlight = await this.deps.stops.inFlight(scope.tenantId, scope.conversationId);
    if (inFlight && policy === 'reject')
      throw new PlatformError(
        'failed_precondition',
        ErrorCodes.RUN_IN_PROGRESS,
        `run '${inFlight.runId}' is in flight in this conversation; send again when it ends, or with another multitask policy`,
        { details: { runId: inFlight.runId, status: inFlight.status } },
      );
    return inFlight;
  }

  /**
   * Asks the run in flight to stop for the message's run `runId` (`interrupt`, `rollback`), or to
   * take it (`steer`): then the run asked to take it, else undefined (the message runs on its own).
   */
  async after(policy: MultitaskPolicy, inFlight: RunRecord | undefined, runId: string): Promise<RunRecord | undefined> {
    if (!inFlight || inFlight.runId === runId) return undefined;
    if (policy === 'interrupt') await this.deps.cancellation.interrupt(inFlight.tenantId, inFlight.runId, runId);
    else if (policy === 'rollback') await this.deps.cancellation.rollback(inFlight.tenantId, inFlight.runId, runId);
    else if (policy === 'steer' && (await this.deps.cancellation.steer(inFlight.tenantId, inFlight.runId, runId)))
      return inFlight;
    return undefined;
  }
}
