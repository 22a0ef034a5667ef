import type { Logger } from '@platform/service-kit';
import type { RunLeaseRenewal } from '../journal/run-lease-renewal.js';
import type { RunFence } from '../journal/run-types.js';
import type { ConversationLease, HeldLease } from './conversation-lease.js';

/** How often leases of `leaseMs` are renewed: a third of the lease, so two renewals may fail before it lapses. */
export function leaseRenewalIntervalMs(leaseMs: number): number {
  return Math.max(100, Math.floor(leaseMs / 3));
}

/** A run this replica works on, with what to do when its renewal says something. */
export interface HeartbeatRun {
  run: RunFence;
  /** The conversation's lease the run's drain holds. */
  lease: HeldLease;
  /** The run was asked to stop (the flag in Postgres, seen at a renewal). */
  onCancelRequested(): void;
  /** A newer message asked the run to stop at its next step boundary (`interrupt`). */
  onInterruptRequested(): void;
  /** The run's lease is lost (another holder took it, or the renewal failed): stop without writing. */
  onLost(error: Error): void;
}

export interface LeaseHeartbeatOptions {
  runLeases: RunLeaseRenewal;
  conversationLeases: ConversationLease;
  owner: string;
  leaseMs: number;
  /** How often the leases are renewed (a third of the lease: two renewals may fail before it lapses). */
  intervalMs: number;
  logger: Logger;
}

/**
 * Keeps the leases of every run this replica works on alive with one ticker for the replica: each
 * tick renews all the run leases in one Postgres statement and all the conversation leases in one
 * Redis round trip, however many runs are in flight. A run is tracked from the start of its attempt
 * until it ends (finished, handed over or abandoned) and is not renewed after; the ticker runs only
 * while runs are tracked. A replica that dies renews nothing, so its runs' leases lapse and another
 * replica resumes them, as before.
 */
export class LeaseHeartbeat {
  private readonly tracked = new Map<string, HeartbeatRun>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private ticking: Promise<void> | undefined;

  constructor(private readonly options: LeaseHeartbeatOptions) {}

  /** Renews `entry`'s leases from the next tick on; the function returned stops that (call it when the attempt ends). */
  track(entry: HeartbeatRun): () => void {
    this.tracked.set(entry.run.runId, entry);
    this.timer ??= setInterval(() => void this.tick(), this.options.intervalMs);
    return () => {
      if (this.tracked.get(entry.run.runId) !== entry) return;
      this.tracked.delete(entry.run.runId);
      if (this.tracked.size === 0) this.stop();
    };
  }

  /** Runs whose leases are being renewed. */
  get size(): number {
    return this.tracked.size;
  }

  /** Whether the replica-wide ticker is running (it is while any run is tracked). */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /**
   * Renews every tracked run's leases now (the ticker calls it; a tick still under way when the
   * next is due is not doubled). Resolves once the renewals were answered and the runs told.
   */
  tick(): Promise<void> {
    this.ticking ??= this.renewAll().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Stops the ticker (shutdown; tracked runs end by themselves). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renewAll(): Promise<void> {
    const entries = [...this.tracked.values()];
    if (entries.length === 0) return;
    const { runLeases, conversationLeases, owner, leaseMs, logger } = this.options;
    // The conversation leases only order new claims; the run leases (Postgres, fenced) guard the runs.
    const [runs] = await Promise.allSettled([
      runLeases.renewAll(
        entries.map((e) => e.run),
        owner,
        leaseMs,
      ),
      conversationLeases.renewAll(entries.map((e) => e.lease)).catch((err: unknown) => {
        logger.warn(
          { err: (err as Error).message, runs: entries.length },
          'could not renew the conversation leases (Redis); the run leases still hold',
        );
        return 0;
      }),
    ]);
    for (const entry of entries) {
      // A run that ended while the renewal was under way is not told anything.
      if (this.tracked.get(entry.run.runId) !== entry) continue;
      if (runs.status === 'rejected') {
        entry.onLost(runs.reason instanceof Error ? runs.reason : new Error(String(runs.reason)));
        continue;
      }
      const renewed = runs.value.get(entry.run.runId);
      if (!renewed)
        entry.onLost(new Error(`the lease on run ${entry.run.runId} was taken over by another orchestrator`));
      else if (renewed.cancelRequested) entry.onCancelRequested();
      else if (renewed.interruptRequested) entry.onInterruptRequested();
    }
  }
}
