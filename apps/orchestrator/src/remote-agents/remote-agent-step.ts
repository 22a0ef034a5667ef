import { remoteAgentOfRun } from '@platform/contracts';
import type { AdmittedAttempt } from '../turn/admission.js';
import { TurnResult, type TurnStep } from '../turn/turn-steps.js';
import type { RemoteAgentCall } from './remote-agent-call.js';

/**
 * The remote-agent step, after admission: a child run a remote A2A agent does (its agent is
 * `remote:<name>`, fixed when the delegation created it) is answered by that agent
 * (remote-agent-call.ts) instead of the local loop; its result goes through post-process and
 * publish like any turn's. Every other run passes on unchanged.
 */
export class RemoteAgentStep implements TurnStep<AdmittedAttempt, AdmittedAttempt | TurnResult> {
  readonly name = 'remote-agent';

  constructor(private readonly call: Pick<RemoteAgentCall, 'run'>) {}

  async run(admitted: AdmittedAttempt): Promise<AdmittedAttempt | TurnResult> {
    const name = remoteAgentOfRun(admitted.attempt.run.agent?.id);
    if (name === undefined) return admitted;
    return new TurnResult(admitted.attempt, await this.call.run(admitted.attempt, name));
  }
}
