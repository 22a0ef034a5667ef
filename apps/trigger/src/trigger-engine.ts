import type { Logger } from '@platform/service-kit';
import type { Clock } from './clock.js';
import type { FireDispatcher } from './fire-dispatcher.js';
import type { FirePlanner } from './fire-planner.js';

export interface TriggerEngineSettings {
  planIntervalMs: number;
  dispatchIntervalMs: number;
  leaseMs: number;
}

/**
 * Drives one replica: plans due tasks every `planIntervalMs`; every `dispatchIntervalMs` claims one
 * batch of the fires due soon ahead of their time (they start from a timer at their time) and
 * claims due fires, and again right when a planned fire becomes due; renews the leases of the
 * fires it executes or holds. Each loop survives its own errors (logged; the next round tries again).
 */
export class TriggerEngine {
  private readonly timers: NodeJS.Timeout[] = [];
  private wakeTimer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private dispatching = false;
  private planning = false;
  private claimingAhead = false;

  constructor(
    readonly planner: FirePlanner,
    readonly dispatcher: FireDispatcher,
    private readonly clock: Clock,
    private readonly settings: TriggerEngineSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.started = true;
    this.dispatcher.onBacklogSlot = () => this.kick();
    this.timers.push(setInterval(() => void this.planRound(), this.settings.planIntervalMs));
    this.timers.push(setInterval(() => void this.dispatchRound(), this.settings.dispatchIntervalMs));
    this.timers.push(setInterval(() => void this.claimAheadRound(), this.settings.dispatchIntervalMs));
    this.timers.push(
      setInterval(
        () =>
          void this.dispatcher
            .renewLeases()
            .catch((err: unknown) => this.logger.error({ err }, 'lease renewal failed')),
        Math.max(100, Math.floor(this.settings.leaseMs / 4)),
      ),
    );
    void this.planRound();
  }

  /** Claims due fires now (after run-now, and when a planned fire's time comes); a no-op until started. */
  kick(): void {
    if (this.started) void this.dispatchRound();
  }

  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.wakeTimer);
    await this.dispatcher.stop(graceMs);
  }

  private async planRound(): Promise<void> {
    if (this.planning || this.stopped) return;
    this.planning = true;
    try {
      const planned = await this.planner.planDue();
      if (planned.earliestDueMs !== null) this.wakeAt(planned.earliestDueMs);
    } catch (err) {
      this.logger.error({ err }, 'planning round failed');
    } finally {
      this.planning = false;
    }
  }

  private wakeAt(dueMs: number): void {
    clearTimeout(this.wakeTimer);
    this.wakeTimer = setTimeout(() => this.kick(), Math.max(0, dueMs - this.clock.now()));
  }

  private async claimAheadRound(): Promise<void> {
    if (this.claimingAhead || this.stopped) return;
    this.claimingAhead = true;
    try {
      await this.dispatcher.claimAhead();
    } catch (err) {
      this.logger.error({ err }, 'claiming ahead failed');
    } finally {
      this.claimingAhead = false;
    }
  }

  private async dispatchRound(): Promise<void> {
    if (this.dispatching || this.stopped) return;
    this.dispatching = true;
    try {
      // Keep claiming while fires are due and slots are free (a burst of coinciding fires).
      while (!this.stopped && (await this.dispatcher.dispatchDue()) > 0);
    } catch (err) {
      this.logger.error({ err }, 'dispatch round failed');
    } finally {
      this.dispatching = false;
    }
  }
}
