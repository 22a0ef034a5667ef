import { QUOTA_NAMES, quotasFor, type TenantTiers } from '@platform/contracts';
import { quotaExceeded } from '@platform/service-kit';
import { Cron } from 'croner';
import type { TaskSpec } from './task-spec.js';

/** Fires of a cron pattern looked at to find its shortest gap (a pattern's gaps repeat within far fewer). */
const CRON_FIRES_SAMPLED = 500;

/** The task quotas of one request's tier. */
export interface TaskLimits {
  /** The configured tier that applies. */
  tier: string;
  /** Tasks the tenant may have. */
  maxTasks: number;
  /** Shortest time between two fires (schedule) or two polls (condition), in seconds. */
  minIntervalSeconds: number;
}

/**
 * The trigger's quotas per tier (`TENANT_TIERS`, parsed once at boot): how many tasks a tenant
 * may have, and how often its tasks may fire. A task that would fire or poll more often than its
 * tier allows is refused at creation and update (429 QUOTA_EXCEEDED, quota
 * `min_schedule_interval_seconds`), so no tenant can make the trigger fire thousands of times a
 * second by creating many every-second tasks.
 */
export class TaskQuotas {
  constructor(
    private readonly tiers: TenantTiers,
    private readonly defaultTier: string,
    /** TRIGGER_MAX_TASKS_PER_TENANT: the task quota of tiers that set none. */
    private readonly defaultMaxTasks: number,
  ) {}

  of(tier: string): TaskLimits {
    const resolved = quotasFor(this.tiers, tier, this.defaultTier, { tasks: this.defaultMaxTasks });
    return {
      tier: resolved.tier,
      maxTasks: resolved.quotas.tasks,
      minIntervalSeconds: resolved.quotas.minScheduleIntervalSeconds,
    };
  }

  /** Refuses a spec that would fire or poll more often than `limits` allow. */
  checkInterval(spec: TaskSpec, limits: TaskLimits, nowMs: number): void {
    const interval = shortestIntervalSeconds(spec, nowMs);
    if (interval === undefined || interval >= limits.minIntervalSeconds) return;
    const field =
      spec.trigger.type === 'schedule' && spec.trigger.cron !== undefined ? 'trigger.cron' : 'trigger.intervalSeconds';
    throw quotaExceeded({
      quota: QUOTA_NAMES.minScheduleIntervalSeconds,
      limit: limits.minIntervalSeconds,
      tier: limits.tier,
      message: `${field}: this task would fire every ${interval} s; tasks of this tenant's tier may fire at most once every ${limits.minIntervalSeconds} s`,
    });
  }
}

/** How often a task fires or polls at most, in seconds; undefined for tasks without a schedule (events, one `at`). */
function shortestIntervalSeconds(spec: TaskSpec, nowMs: number): number | undefined {
  const trigger = spec.trigger;
  if (trigger.type === 'condition') return trigger.intervalSeconds;
  if (trigger.type !== 'schedule') return undefined;
  if (trigger.intervalSeconds !== undefined) return trigger.intervalSeconds;
  if (trigger.cron === undefined) return undefined;
  const runs = new Cron(trigger.cron, { timezone: trigger.timeZone, paused: true }).nextRuns(
    CRON_FIRES_SAMPLED,
    new Date(nowMs),
  );
  let shortest: number | undefined;
  for (let i = 1; i < runs.length; i += 1) {
    const gap = (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000;
    if (shortest === undefined || gap < shortest) shortest = gap;
  }
  return shortest;
}
