import { describe, expect, it } from 'vitest';
import { planFires, type PlanSettings } from './fire-plan.js';
import { Schedule } from './schedule.js';
import { MisfirePolicy, ScheduleTrigger } from './task-spec.js';

const MINUTE = 60_000;
const everyMinute = new Schedule(ScheduleTrigger.parse({ type: 'schedule', cron: '* * * * *' }), 0);
const T0 = Date.parse('2026-06-01T12:00:00Z');

function settings(nowMs: number): PlanSettings {
  return { nowMs, planAheadMs: 1_000, misfireGraceMs: MINUTE / 2, maxCatchUp: 100, maxPlanned: 500 };
}

const view = (plan: ReturnType<typeof planFires>) => ({
  fires: plan.fires.map(
    (f) =>
      `${new Date(f.scheduledAt).toISOString().slice(11, 16)} ${f.status}${f.missedCount ? ` +${f.missedCount}` : ''}`,
  ),
  next: plan.nextFireAt === null ? null : new Date(plan.nextFireAt).toISOString().slice(11, 16),
});

describe('planFires after ten minutes of downtime', () => {
  // The task's next time was 12:00; the service comes back at 12:10:00 (12:10 is on time).
  const now = T0 + 10 * MINUTE;

  it('skip: records the ten missed times as one skipped fire, then fires on time', () => {
    expect(view(planFires(everyMinute, T0, MisfirePolicy.parse({ policy: 'skip' }), settings(now)))).toEqual({
      fires: ['12:09 skipped +9', '12:10 pending'],
      next: '12:11',
    });
  });

  it('fire_once: one fire stands for the ten missed times', () => {
    expect(view(planFires(everyMinute, T0, MisfirePolicy.parse({ policy: 'fire_once' }), settings(now)))).toEqual({
      fires: ['12:09 pending +9', '12:10 pending'],
      next: '12:11',
    });
  });

  it('catch_up: one fire per missed time inside the window; older ones skipped', () => {
    const plan = planFires(
      everyMinute,
      T0,
      MisfirePolicy.parse({ policy: 'catch_up', windowSeconds: 5 * 60 }),
      settings(now),
    );
    expect(view(plan)).toEqual({
      fires: [
        '12:04 skipped +4',
        '12:05 pending',
        '12:06 pending',
        '12:07 pending',
        '12:08 pending',
        '12:09 pending',
        '12:10 pending',
      ],
      next: '12:11',
    });
  });

  it('catch_up keeps at most maxCatchUp, the latest ones', () => {
    const plan = planFires(everyMinute, T0, MisfirePolicy.parse({ policy: 'catch_up', windowSeconds: 3600 }), {
      ...settings(now),
      maxCatchUp: 3,
    });
    expect(view(plan).fires).toEqual([
      '12:06 skipped +6',
      '12:07 pending',
      '12:08 pending',
      '12:09 pending',
      '12:10 pending',
    ]);
  });

  it('a time within the grace is on time, not a misfire', () => {
    expect(view(planFires(everyMinute, T0, MisfirePolicy.parse({ policy: 'skip' }), settings(T0 + 20_000)))).toEqual({
      fires: ['12:00 pending'],
      next: '12:01',
    });
  });

  it('plans nothing before the horizon and keeps the next time', () => {
    expect(view(planFires(everyMinute, T0, MisfirePolicy.parse({}), settings(T0 - 5_000)))).toEqual({
      fires: [],
      next: '12:00',
    });
  });

  it('a missed one-time schedule: skip records it and has no next time; fire_once fires it', () => {
    const once = new Schedule(ScheduleTrigger.parse({ type: 'schedule', at: '2026-06-01T12:00:00Z' }), 0);
    expect(view(planFires(once, T0, MisfirePolicy.parse({ policy: 'skip' }), settings(now)))).toEqual({
      fires: ['12:00 skipped'],
      next: null,
    });
    expect(view(planFires(once, T0, MisfirePolicy.parse({ policy: 'fire_once' }), settings(now)))).toEqual({
      fires: ['12:00 pending'],
      next: null,
    });
  });
});
