import type { Logger } from '@platform/service-kit';

export interface ToolBreakerSettings {
  /** Consecutive failures that open a tool's breaker; 0 turns breakers off. */
  failureThreshold: number;
  /** How long an open breaker refuses calls before it lets one trial call through. */
  cooldownMs: number;
  logger: Logger;
  /** The clock (tests pass their own). */
  now?: () => number;
}

/** How a call went, as far as the tool's health goes. */
export type CallHealth =
  /** The tool answered (whatever it said). */
  | 'healthy'
  /** The tool did not answer in time, its replicas were all busy, or the transport failed. */
  | 'unhealthy'
  /** Says nothing about the tool (bad arguments, the caller gave up, no runner at all). */
  | 'neutral';

/** Whether a call may go to the tool now. */
export type Admission = { allowed: true; trial: boolean } | { allowed: false; retryInMs: number };

/** A breaker as operators see it (GET /v1/tools): closed, open until `retryInMs` passes, or half-open (a trial call may go). */
export interface BreakerView {
  state: 'closed' | 'open' | 'half_open';
  consecutiveFailures: number;
  /** While open: how long calls are still refused. */
  retryInMs: number;
}

interface Breaker {
  failures: number;
  /** Set while open: calls are refused until then. */
  openUntil: number | undefined;
  /** A trial call is under way (half-open): others are refused until it ends. */
  trialInFlight: boolean;
}

/**
 * Circuit breakers per tool, for one orchestrator process: a tool that failed `failureThreshold`
 * times in a row (timeouts, busy replicas, transport failures) is refused at once for
 * `cooldownMs`, instead of costing every turn that calls it a full timeout. Then one trial call
 * goes through (half-open): an answer closes the breaker, another failure opens it again.
 */
export class ToolBreakers {
  private readonly breakers = new Map<string, Breaker>();
  private readonly now: () => number;

  constructor(private readonly settings: ToolBreakerSettings) {
    this.now = settings.now ?? Date.now;
  }

  admit(tool: string): Admission {
    const breaker = this.breakers.get(tool);
    if (this.settings.failureThreshold === 0 || breaker?.openUntil === undefined)
      return { allowed: true, trial: false };
    const waitMs = breaker.openUntil - this.now();
    if (waitMs > 0) return { allowed: false, retryInMs: waitMs };
    if (breaker.trialInFlight) return { allowed: false, retryInMs: this.settings.cooldownMs };
    breaker.trialInFlight = true;
    return { allowed: true, trial: true };
  }

  /** The tool's breaker now (a tool never seen failing is closed). */
  view(tool: string): BreakerView {
    const breaker = this.breakers.get(tool);
    if (!breaker) return { state: 'closed', consecutiveFailures: 0, retryInMs: 0 };
    if (breaker.openUntil === undefined)
      return { state: 'closed', consecutiveFailures: breaker.failures, retryInMs: 0 };
    const waitMs = breaker.openUntil - this.now();
    return waitMs > 0
      ? { state: 'open', consecutiveFailures: breaker.failures, retryInMs: waitMs }
      : { state: 'half_open', consecutiveFailures: breaker.failures, retryInMs: 0 };
  }

  /** Records how an admitted call went. */
  record(tool: string, health: CallHealth, admission: Extract<Admission, { allowed: true }>): void {
    if (this.settings.failureThreshold === 0) return;
    const breaker = this.breakers.get(tool) ?? { failures: 0, openUntil: undefined, trialInFlight: false };
    if (admission.trial) breaker.trialInFlight = false;
    if (health === 'healthy') {
      if (breaker.openUntil !== undefined)
        this.settings.logger.info({ tool }, 'tool answers again; its breaker is closed');
      this.breakers.delete(tool);
      return;
    }
    if (health === 'neutral') return;
    breaker.failures += 1;
    if (admission.trial || breaker.failures >= this.settings.failureThreshold) {
      breaker.openUntil = this.now() + this.settings.cooldownMs;
      this.settings.logger.warn(
        { tool, failures: breaker.failures, cooldownMs: this.settings.cooldownMs },
        'tool keeps failing; its breaker is open',
      );
    }
    this.breakers.set(tool, breaker);
  }
}
