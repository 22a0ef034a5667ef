import { describe, expect, it } from 'vitest';
import { Schedule } from './schedule.js';
import { ScheduleTrigger } from './task-spec.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const cron = (pattern: string, timeZone: string) =>
  new Schedule(ScheduleTrigger.parse({ type: 'schedule', cron: pattern, timeZone }), 0);
const times = (schedule: Schedule, from: string, to: string) =>
  schedule.between(Date.parse(from), Date.parse(to), 100).map(iso);

describe('cron schedules across daylight saving', () => {
  it('fires a 02:30 job once on a spring-forward day, at the end of the gap (Europe/Berlin)', () => {
    // 2026-03-29: clocks jump 02:00 CET -> 03:00 CEST; 02:30 does not exist.
    expect(times(cron('30 2 * * *', 'Europe/Berlin'), '2026-03-28T00:00:00Z', '2026-03-30T23:59:59Z')).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, the first instant after the gap
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('fires a 02:30 job once on a spring-forward day (America/New_York)', () => {
    // 2026-03-08: 02:00 EST -> 03:00 EDT.
    expect(times(cron('30 2 * * *', 'America/New_York'), '2026-03-07T00:00:00Z', '2026-03-09T23:59:59Z')).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:00:00.000Z', // 03:00 EDT
      '2026-03-09T06:30:00.000Z',
    ]);
  });

  it('fires a 01:30 job once on a fall-back day, at its first occurrence (America/New_York)', () => {
    // 2026-11-01: 02:00 EDT -> 01:00 EST; 01:30 happens twice.
    expect(times(cron('30 1 * * *', 'America/New_York'), '2026-10-31T00:00:00Z', '2026-11-02T23:59:59Z')).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z', // 01:30 EDT; not again at 01:30 EST (06:30Z)
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('fires a 02:30 job once on a fall-back day (Europe/Berlin)', () => {
    // 2026-10-25: 03:00 CEST -> 02:00 CET; 02:30 happens twice.
    expect(times(cron('30 2 * * *', 'Europe/Berlin'), '2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z')).toEqual([
      '2026-10-25T00:30:00.000Z', // 02:30 CEST only
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('follows real time for patterns that repeat within the hour: both copies of a repeated hour fire', () => {
    expect(times(cron('0,30 * * * *', 'Europe/Berlin'), '2026-10-25T00:00:00Z', '2026-10-25T01:59:59Z')).toEqual([
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T01:30:00.000Z', // 02:30 CET
    ]);
  });

  it('finds the last time before an instant', () => {
    const schedule = cron('0 8 * * *', 'UTC');
    expect(iso(schedule.lastBefore(Date.parse('2026-03-28T08:00:00Z')))).toBe('2026-03-27T08:00:00.000Z');
    expect(iso(schedule.lastBefore(Date.parse('2026-03-28T08:00:00.001Z')))).toBe('2026-03-28T08:00:00.000Z');
  });
});

describe('interval and one-time schedules', () => {
  it('runs an interval from its creation, one interval later, in exact durations', () => {
    const created = Date.parse('2026-03-29T00:00:00Z');
    const schedule = new Schedule(ScheduleTrigger.parse({ type: 'schedule', intervalSeconds: 3600 }), created);
    expect(times(schedule, '2026-03-29T00:00:00Z', '2026-03-29T03:00:00Z')).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-29T02:00:00.000Z',
      '2026-03-29T03:00:00.000Z',
    ]);
    expect(schedule.countBetween(created, created + 10 * 24 * 3600 * 1000, 1_000_000)).toBe(240);
    expect(iso(schedule.lastBefore(Date.parse('2026-03-29T02:30:00Z')))).toBe('2026-03-29T02:00:00.000Z');
  });

  it('starts an interval at startAt when given', () => {
    const schedule = new Schedule(
      ScheduleTrigger.parse({ type: 'schedule', intervalSeconds: 60, startAt: '2026-01-01T00:00:30Z' }),
      0,
    );
    expect(iso(schedule.nextAfter(Date.parse('2025-12-31T00:00:00Z')))).toBe('2026-01-01T00:00:30.000Z');
    expect(iso(schedule.nextAfter(Date.parse('2026-01-01T00:00:30Z')))).toBe('2026-01-01T00:01:30.000Z');
  });

  it('fires a one-time schedule once', () => {
    const schedule = new Schedule(ScheduleTrigger.parse({ type: 'schedule', at: '2026-05-01T15:00:00+02:00' }), 0);
    expect(iso(schedule.nextAfter(Date.parse('2026-05-01T00:00:00Z')))).toBe('2026-05-01T13:00:00.000Z');
    expect(schedule.nextAfter(Date.parse('2026-05-01T13:00:00Z'))).toBeNull();
  });
});
