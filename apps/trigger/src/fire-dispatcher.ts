import type { Logger } from '@platform/service-kit';
import { PLATFORM, recordFireLag, recordSpanError, withSpan } from '@platform/telemetry';
import { setMaxListeners } from 'node:events';
import { ClaimedAheadFires } from './claimed-ahead.js';
import type { Clock } from './clock.js';
import type { ExecutionOutcome, FireExecutor } from './executors/fire-executor.js';
import type { ClaimedFire, FireSettlement, FireStore } from './fire-store.js';
import { SettlementBatcher } from './settlement-batcher.js';
import { ErrorCodes } from './error-codes.js';

/** Outcomes that may wait for their write per execution slot before claiming pauses. */
const SETTLING_PER_SLOT = 4;

export interface FireDispatcherSettings {
  maxConcurrent: number;
  leaseMs: number;
  misfireGraceMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Fires due within this much are claimed ahead of their time (0: only due fires are claimed). */
  claimAheadMs: number;
  /** Fires one claim-ahead statement takes at most. */
  claimAheadBatch: number;
}

/**
 * Claims fires and executes them. A claim is a lease: while the execution runs the lease is
 * renewed (`renewLeases`); if this replica dies, the lease runs out and another replica claims the
 * fire again and executes it with the same fire id, which the executors dedupe on. Back-pressure
 * from an executor puts the fire back to wait for the time it asked for, without counting an attempt.
 * Fires due soon are claimed ahead (`claimAhead`) and held until their time (`ClaimedAheadFires`),
 * so a burst of coinciding fires waits for no claim at its time.
 */
export class FireDispatcher {
  /** Fires executing now: each holds one of `maxConcurrent` slots. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * Fires whose execution ended and whose outcome is being written (group commit). They hold no
   * slot — a slot is for an execution, and waiting for a commit must not keep the next fire from
   * starting — but their lease is still renewed until the outcome is recorded.
   */
  private readonly settling = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private readonly settlements: SettlementBatcher;
  /** Fires claimed ahead of their time, waiting for it. */
  private readonly ahead: ClaimedAheadFires;
  /** Fires claimed ahead whose time came, waiting for a free slot (oldest first, from `readyHead`). */
  private ready: ClaimedFire[] = [];
  private readyHead = 0;
  /** The last claim filled every free slot: more fires may be due, so a freed slot claims again. */
  private backlog = false;
  /** Set when the replica begins to stop: outcomes are then written without waiting. */
  private stopping = false;
  /** Called when a slot frees up while fires may be waiting (the engine claims again). */
  onBacklogSlot: () => void = () => undefined;

  constructor(
    private readonly store: FireStore,
    private readonly executor: FireExecutor,
    private readonly clock: Clock,
    private readonly settings: FireDispatcherSettings,
    private readonly logger: Logger,
  ) {
    // Outcomes wait while fires of a burst are still being started: starting them is what is late.
    this.settlements = new SettlementBatcher(
      store,
      clock,
      Math.max(1, settings.maxConcurrent),
      () => this.startingBurst,
    );
    this.ahead = new ClaimedAheadFires(store, clock, (fires) => this.enqueue(fires), logger);
    // Every running execution listens to this one signal (cancelled at shutdown).
    setMaxListeners(0, this.abort.signal);
  }

  get busy(): number {
    return this.inFlight.size;
  }

  /** Fires held: claimed ahead and waiting for their time, or due and waiting for a slot. */
  get held(): number {
    return this.ahead.size + this.readyCount;
  }

  /**
   * Starts the fires claimed ahead whose time has come, then claims as many due fires as there are
   * free slots and starts them; resolves with how many it claimed.
   */
  async dispatchDue(): Promise<number> {
    await this.ahead.startDue();
    // Outcomes waiting for their write count against a larger bound, so a slow database slows the claims down.
    const busy = this.inFlight.size + this.readyCount;
    const free = Math.min(
      this.settings.maxConcurrent - busy,
      SETTLING_PER_SLOT * this.settings.maxConcurrent - this.settling.size - busy,
    );
    if (free <= 0 || this.abort.signal.aborted) return 0;
    const claimed = await this.store.claim(free, this.clock.now(), this.settings.leaseMs);
    this.backlog = claimed.length === free;
    for (const item of claimed) this.begin(item);
    return claimed.length;
  }

  /**
   * Claims ahead one batch of the fires due within `claimAheadMs` (one statement, `SKIP LOCKED`)
   * and holds them until their time. One batch per call: replicas that call it on the same
   * cadence share the upcoming fires batch by batch, and a replica still waiting for slots for due
   * fires claims none ahead (the others take them). Resolves with how many it claimed.
   */
  async claimAhead(): Promise<number> {
    if (this.settings.claimAheadMs <= 0 || this.readyCount > 0 || this.abort.signal.aborted) return 0;
    const nowMs = this.clock.now();
    const claimed = await this.store.claimAhead(
      this.settings.claimAheadBatch,
      nowMs,
      nowMs + this.settings.claimAheadMs,
      this.settings.leaseMs,
    );
    this.ahead.hold(claimed);
    return claimed.length;
  }

  /** Resolves when every fire this replica started has settled (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.settling.size > 0)
      await Promise.all([...this.inFlight.values(), ...this.settling.values()]);
  }

  async renewLeases(): Promise<void> {
    const ready = this.ready.slice(this.readyHead).map((f) => f.fire.fire_id);
    // Fires claimed ahead need no renewal before their time: their lease runs until it plus `leaseMs`.
    await this.store.renewLeases(
      [...this.inFlight.keys(), ...this.settling.keys(), ...ready],
      this.clock.now(),
      this.settings.leaseMs,
    );
  }

  /**
   * Stops claiming, gives back the fires claimed ahead and not started, cancels executions still
   * running after `graceMs` (their fires are retried elsewhere).
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    await this.ahead
      .release()
      .catch((err: unknown) =>
        this.logger.warn(
          { err },
          'could not give back fires claimed ahead; they are claimed again when their leases run out',
        ),
      );
    const settled = this.idle();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.abort.abort();
  }

  /** Fires claimed ahead are being marked or wait for a slot (a burst is starting). */
  private get startingBurst(): boolean {
    return !this.stopping && (this.readyCount > 0 || this.ahead.starting);
  }

  private get readyCount(): number {
    return this.ready.length - this.readyHead;
  }

  /** Claimed-ahead fires whose time came: they run as slots free up. */
  private enqueue(fires: ClaimedFire[]): void {
    for (const item of fires) this.ready.push(item);
    this.pump();
  }

  private pump(): void {
    while (this.readyCount > 0 && this.inFlight.size < this.settings.maxConcurrent && !this.abort.signal.aborted)
      this.begin(this.ready[this.readyHead++]!);
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }

  /** Executes a claimed fire in a slot; its outcome is then written in a group, without the slot. */
  private begin(item: ClaimedFire): void {
    const id = item.fire.fire_id;
    const running = this.execute(item).then((settlement) => {
      this.inFlight.delete(id);
      this.settling.set(
        id,
        this.settle(item, settlement).finally(() => this.settling.delete(id)),
      );
      if (this.readyCount > 0) this.pump();
      // Refill in chunks (a quarter of the slots), not one claim query per finished fire.
      else if (
        this.backlog &&
        this.settings.maxConcurrent - this.inFlight.size >= Math.ceil(this.settings.maxConcurrent / 4)
      )
        this.onBacklogSlot();
    });
    this.inFlight.set(id, running);
  }

  /** Runs the executor (or skips a misfire) and says how the fire ends; never throws. */
  private async execute({ fire, task }: ClaimedFire): Promise<FireSettlement> {
    const started = this.clock.now();
    if (fire.attempts === 1) recordFireLag(fire.kind, (started - fire.scheduled_at.getTime()) / 1000);
    let settlement: FireSettlement;
    if (this.missedUnderSkip({ fire, task }, started)) {
      settlement = {
        status: 'skipped',
        runId: '',
        result: null,
        errorCode: ErrorCodes.MISFIRE_SKIPPED,
        errorMessage: 'the fire was due while no replica could run it; the task skips misfires',
      };
    } else {
      let outcome: ExecutionOutcome;
      try {
        // Each fire starts its own trace: the run (or custom executor call) it starts is part of it.
        const attributes = {
          [PLATFORM.tenant]: task.tenant_id,
          [PLATFORM.taskId]: task.task_id,
          [PLATFORM.fireId]: fire.fire_id,
          [PLATFORM.fireKind]: fire.kind,
          [PLATFORM.fireAttempt]: fire.attempts,
        };
        outcome = await withSpan('@platform/trigger', 'trigger fire', { root: true, attributes }, async (span) => {
          const result = await this.runExecutor({ fire, task });
          if (result.status === 'failed')
            recordSpanError(span, Object.assign(new Error(result.message), { name: result.code }));
          return result;
        });
      } catch (err) {
        this.logger.error({ err, fireId: fire.fire_id }, 'executor threw');
        outcome = {
          status: 'failed',
          code: ErrorCodes.EXECUTOR_ERROR,
          message: (err as Error).message,
          retryable: true,
        };
      }
      settlement = this.settlementOf(outcome, fire.attempts);
    }
    return settlement;
  }

  private runExecutor({ fire, task }: ClaimedFire): Promise<ExecutionOutcome> {
    return this.executor.execute(
      {
        fireId: fire.fire_id,
        taskId: task.task_id,
        tenantId: task.tenant_id,
        userId: task.user_id,
        kind: fire.kind,
        scheduledAt: fire.scheduled_at,
        attempt: fire.attempts,
        missedCount: fire.missed_count,
        spec: task.spec,
        payload: fire.payload,
      },
      this.abort.signal,
    );
  }

  /** Records the outcome (grouped with others); a failure leaves the fire to its lease. */
  private async settle({ fire, task }: ClaimedFire, settlement: FireSettlement): Promise<void> {
    try {
      const held = await this.settlements.settle(fire, settlement);
      if (!held)
        this.logger.warn(
          { fireId: fire.fire_id, attempt: fire.attempts },
          'fire lease was lost before it settled; another replica owns it now',
        );
      else this.logger.debug({ fireId: fire.fire_id, taskId: task.task_id, status: settlement.status }, 'fire settled');
    } catch (err) {
      // The lease runs out and another replica retries the fire with the same id.
      this.logger.error({ err, fireId: fire.fire_id }, 'could not record a fire outcome');
    }
  }

  /** A scheduled fire first claimed long after its time, of a task that skips misfires (it waited out a downtime). */
  private missedUnderSkip({ fire, task }: ClaimedFire, nowMs: number): boolean {
    return (
      fire.kind === 'schedule' &&
      fire.attempts === 1 &&
      task.spec.misfire.policy === 'skip' &&
      fire.scheduled_at.getTime() < nowMs - this.settings.misfireGraceMs
    );
  }

  private settlementOf(outcome: ExecutionOutcome, attempt: number): FireSettlement {
    const now = this.clock.now();
    switch (outcome.status) {
      case 'succeeded':
        return {
          status: 'succeeded',
          runId: outcome.runId ?? '',
          result: outcome.result,
          errorCode: '',
          errorMessage: '',
        };
      case 'waiting_approval':
        return {
          status: 'waiting_approval',
          runId: outcome.runId,
          result: outcome.result,
          errorCode: '',
          errorMessage: '',
        };
      case 'backpressure':
        return {
          status: 'retry',
          dueAtMs: now + outcome.retryAfterMs,
          countAttempt: false,
          runId: '',
          errorCode: outcome.code,
          errorMessage: outcome.message,
        };
      case 'failed': {
        if (outcome.retryable && attempt < this.settings.maxAttempts) {
          const delay = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** (attempt - 1));
          return {
            status: 'retry',
            dueAtMs: now + delay,
            countAttempt: true,
            runId: outcome.runId ?? '',
            errorCode: outcome.code,
            errorMessage: outcome.message,
          };
        }
        return {
          status: 'failed',
          runId: outcome.runId ?? '',
          result: null,
          errorCode: outcome.code,
          errorMessage: outcome.message,
        };
      }
    }
  }
}
