import type { Logger } from '@platform/service-kit';
import { NotYetError, type DeletionSteps } from './deletion-steps.js';
import type { DeletionRow, DeletionStore } from './deletion-store.js';

export interface DeletionWorkerOptions {
  store: DeletionStore;
  steps: DeletionSteps;
  owner: string;
  /** How long a claimed job is this worker's before another may take it over (renewed after each step). */
  leaseMs: number;
  /** How often open jobs are looked for (a new job is started at once on the replica that took it). */
  pollIntervalMs: number;
  /** How long a job whose step failed waits before it is tried again. */
  retryMs: number;
  logger: Logger;
}

/**
 * Carries out deletion jobs: claims one (SKIP LOCKED, so replicas share the work), runs its steps
 * from the first (each idempotent, so a job resumed after a crash repeats at most the step it was
 * in), records each, and completes it. A job whose lease ran out (its worker died) is claimed again.
 */
export class DeletionWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: DeletionWorkerOptions) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for work now (a job was just recorded). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: unknown) => this.options.logger.error({ err }, 'conversation deletions: sweep failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    const { store, owner, leaseMs } = this.options;
    while (!this.stopped) {
      const job = await store.claim(owner, leaseMs);
      if (!job) return;
      await this.carryOut(job);
    }
  }

  private async carryOut(job: DeletionRow): Promise<void> {
    const { store, steps, owner, leaseMs, retryMs, logger } = this.options;
    const log = logger.child({ deletionId: job.deletion_id, tenantId: job.tenant_id, attempt: job.attempts });
    try {
      const scope = await steps.scope(job);
      for (const [name, step] of steps.steps) {
        const counts = await step(job, scope);
        if (!(await store.stepDone(job, owner, name, counts, leaseMs))) {
          log.warn({ step: name }, 'conversation deletion: lease lost; another worker goes on');
          return;
        }
        log.info({ step: name, counts }, 'conversation deletion: step done');
      }
      await store.complete(job, owner);
      log.info('conversation deletion completed');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof NotYetError) log.info({ reason: message }, 'conversation deletion: waiting');
      else log.warn({ err }, 'conversation deletion: step failed; will retry');
      await store.failed(job, owner, message, retryMs);
    }
  }
}
