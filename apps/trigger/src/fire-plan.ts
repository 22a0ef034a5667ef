import type { Schedule } from './schedule.js';
import type { MisfirePolicy } from './task-spec.js';

/** A fire to record for a scheduled time. */
interface PlannedFire {
  scheduledAt: number;
  /** `pending` fires are executed; `skipped` ones only record missed times. */
  status: 'pending' | 'skipped';
  /** Scheduled times this fire stands for beyond its own (misfires folded into it). */
  missedCount: number;
}

export interface FirePlan {
  fires: PlannedFire[];
  /** The first time not planned yet; null when the schedule has no further time. */
  nextFireAt: number | null;
}

export interface PlanSettings {
  nowMs: number;
  /** Times up to `nowMs + planAheadMs` are planned now (due later, at their time). */
  planAheadMs: number;
  /** A time older than `nowMs - misfireGraceMs` was missed. */
  misfireGraceMs: number;
  /** Most fires `catch_up` records for one task at once. */
  maxCatchUp: number;
  /** Most on-time fires planned for one task in one round. */
  maxPlanned: number;
}

/** Missed times are counted up to this many (the count is informational, and counting a cron walks its times). */
const MISSED_COUNT_CAP = 10_000;

function skippedFire(schedule: Schedule, fromMs: number, beforeMs: number): PlannedFire[] {
  const count = schedule.countBetween(fromMs, beforeMs - 1, MISSED_COUNT_CAP);
  const last = count > 0 ? schedule.lastBefore(beforeMs) : null;
  return last === null ? [] : [{ scheduledAt: last, status: 'skipped', missedCount: count - 1 }];
}

/** What to do with the times that were missed, `[nextFireAt, missedBefore)`, under the task's policy. */
function planMisfires(
  schedule: Schedule,
  nextFireAt: number,
  missedBefore: number,
  misfire: MisfirePolicy,
  settings: PlanSettings,
): PlannedFire[] {
  if (misfire.policy === 'skip') return skippedFire(schedule, nextFireAt, missedBefore);
  if (misfire.policy === 'fire_once') {
    const count = schedule.countBetween(nextFireAt, missedBefore - 1, MISSED_COUNT_CAP);
    const last = schedule.lastBefore(missedBefore);
    return last === null || count === 0 ? [] : [{ scheduledAt: last, status: 'pending', missedCount: count - 1 }];
  }
  // catch_up: every missed time within the window (the latest maxCatchUp of them); older ones are skipped.
  const windowStart = Math.max(nextFireAt, settings.nowMs - misfire.windowSeconds! * 1000);
  const inWindow = schedule.countBetween(windowStart, missedBefore - 1, MISSED_COUNT_CAP);
  const kept = Math.min(inWindow, settings.maxCatchUp);
  const caughtUp = kept === 0 ? [] : latestTimes(schedule, windowStart, missedBefore, kept);
  const keptFrom = caughtUp[0] ?? missedBefore;
  return [
    ...skippedFire(schedule, nextFireAt, keptFrom),
    ...caughtUp.map((scheduledAt) => ({ scheduledAt, status: 'pending' as const, missedCount: 0 })),
  ];
}

/** The latest `n` times in `[fromMs, beforeMs)`, oldest first. */
function latestTimes(schedule: Schedule, fromMs: number, beforeMs: number, n: number): number[] {
  const times: number[] = [];
  let cursor = beforeMs;
  while (times.length < n) {
    const previous = schedule.lastBefore(cursor);
    if (previous === null || previous < fromMs) break;
    times.unshift(previous);
    cursor = previous;
  }
  return times;
}

/**
 * Plans the fires of one task whose next time has come: misfires under its policy, then every time
 * up to the planning horizon. Pure: the same inputs always give the same plan, so two replicas
 * that (wrongly) planned the same task would record the same fire keys, and the unique key keeps one.
 */
export function planFires(
  schedule: Schedule,
  nextFireAt: number,
  misfire: MisfirePolicy,
  settings: PlanSettings,
): FirePlan {
  const missedBefore = settings.nowMs - settings.misfireGraceMs;
  const horizon = settings.nowMs + settings.planAheadMs;
  const fires = nextFireAt < missedBefore ? planMisfires(schedule, nextFireAt, missedBefore, misfire, settings) : [];
  const onTimeFrom = Math.max(nextFireAt, missedBefore);
  const onTime = schedule.between(onTimeFrom, horizon, settings.maxPlanned);
  fires.push(...onTime.map((scheduledAt) => ({ scheduledAt, status: 'pending' as const, missedCount: 0 })));
  const lastPlanned = onTime.length === settings.maxPlanned ? onTime[onTime.length - 1]! : horizon;
  return { fires, nextFireAt: schedule.nextAfter(Math.max(lastPlanned, onTimeFrom - 1)) };
}
