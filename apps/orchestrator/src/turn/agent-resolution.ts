import type { Logger } from '@platform/service-kit';
import type { RunnableAgent } from '../profiles.js';
import type { RunAgentPin } from '../tenant-agents/agent-resolver.js';
import type { AdmittedAttempt } from './admission.js';
import { reportFailure, SYSTEM_FAILURES } from './failure-report.js';
import { syntheticResult, TurnResult, type TurnStep } from './turn-steps.js';

/** The agent-resolution step's output: an admitted attempt with the profile it runs under. */
export interface AdmittedTurn {
  attempt: AdmittedAttempt['attempt'];
  profile: RunnableAgent;
}

export interface AgentResolutionStepOptions {
  /** The run's recorded agent version (or built-in profile) as a compiled profile; undefined: gone. */
  agents: { forRun(run: RunAgentPin): Promise<RunnableAgent | undefined> };
  logger: Logger;
}

/**
 * The agent-resolution step: the run's agent, fixed when it was created (the agent id and version
 * recorded on the run, with its overrides; a built-in profile by name), compiled once per replica
 * and version. A new version published meanwhile changes nothing for this run: a resume, on any
 * replica, runs under the same version. A built-in profile removed from the file ends the run
 * with a failure.
 */
export class AgentResolutionStep implements TurnStep<AdmittedAttempt, AdmittedTurn | TurnResult> {
  readonly name = 'agent-resolution';

  constructor(private readonly options: AgentResolutionStepOptions) {}

  async run({ attempt }: AdmittedAttempt): Promise<AdmittedTurn | TurnResult> {
    const { run } = attempt;
    const profile = await this.options.agents.forRun({
      tenantId: run.tenantId,
      profile: run.profile,
      ...(run.agent ? { agent: run.agent } : {}),
      ...(run.overrides ? { overrides: run.overrides } : {}),
    });
    if (profile) return { attempt, profile };
    const message = `the agent profile '${run.profile}' no longer exists`;
    reportFailure(this.options.logger, run, SYSTEM_FAILURES.profileMissing);
    return new TurnResult(
      attempt,
      syntheticResult(run.runId, 'model_error', message, {
        kind: 'profile_missing',
        message,
        failure: SYSTEM_FAILURES.profileMissing,
      }),
    );
  }
}
