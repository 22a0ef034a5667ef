import type { ToolPort } from '@platform/agent-loop';
import type { PoolAgents } from '../agent-tools/pool-agents.js';
import type { ProfileRegistry } from '../profiles.js';
import type { SettledTurn } from '../turn/pending-agent-tools.js';
import type { ToolPortDecorator } from '../turn/tool-ports.js';
import { parentEventsOf, type ChildRuns } from './child-runs.js';
import { DelegationToolPort, type DelegationSettings } from './delegation-tools.js';

export interface DelegationPortsOptions {
  childRuns: ChildRuns;
  profiles: ProfileRegistry;
  settings: DelegationSettings;
  /** Committees put to the user ask through the agent pool. */
  userDecisions: PoolAgents;
}

/**
 * The teams' tool-port decorator: a profile with delegates or committees gets their tools
 * (`delegate_to_<role>`, committees) beside its runner tools; any other turn's port is unchanged.
 */
export class DelegationPorts implements ToolPortDecorator {
  constructor(private readonly options: DelegationPortsOptions) {}

  decorate(port: ToolPort, { attempt, profile }: SettledTurn): ToolPort {
    if (!profile.delegates.length && !profile.committees.length) return port;
    const { childRuns, profiles, settings, userDecisions } = this.options;
    return new DelegationToolPort(port, childRuns, profiles, settings, {
      run: attempt.run,
      delegates: profile.delegates,
      committees: profile.committees,
      events: parentEventsOf(attempt.events),
      handingOver: attempt.handingOver,
      userDecisions,
    });
  }
}
