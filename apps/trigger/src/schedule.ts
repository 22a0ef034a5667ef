import { compositeKey } from '@platform/contracts';
import { Cron } from 'croner';
import type { ScheduleTrigger } from './task-spec.js';

/** Most cron patterns (pattern + time zone) kept compiled, and most answers kept per pattern. */
const MAX_PATTERNS = 1_000;
const MAX_ANSWERS = 10_000;

/**
 * A compiled cron pattern in a time zone, with its answers remembered. Computing a time in a zone
 * is costly (croner converts through Intl), and tasks whose times coincide share patterns and ask
 * the same questions (the next time after the same instant), so a burst of 10,000 every-minute
 * tasks computes one answer, not 10,000. The answers are pure functions of (pattern, zone, instant).
 */
class CompiledCron {
  private readonly cron: Cron;
  private readonly next = new Map<number, number | null>();
  private readonly previous = new Map<number, number | null>();

  constructor(pattern: string, timeZone: string | undefined) {
    this.cron = new Cron(pattern, { ...(timeZone ? { timezone: timeZone } : {}), paused: true });
  }

  nextAfter(afterMs: number): number | null {
    return remembered(this.next, afterMs, () => this.cron.nextRun(new Date(afterMs))?.getTime() ?? null);
  }

  lastBefore(beforeMs: number): number | null {
    return remembered(
      this.previous,
      beforeMs,
      () => this.cron.previousRuns(1, new Date(beforeMs))[0]?.getTime() ?? null,
    );
  }
}

function remembered(answers: Map<number, number | null>, at: number, compute: () => number | null): number | null {
  const known = answers.get(at);
  if (known !== undefined) return known;
  if (answers.size >= MAX_ANSWERS) answers.clear();
  const answer = compute();
  answers.set(at, answer);
  return answer;
}

const compiled = new Map<string, CompiledCron>();

function compiledCron(pattern: string, timeZone: string | undefined): CompiledCron {
  const key = timeZone === undefined ? compositeKey(pattern) : compositeKey(pattern, timeZone);
  let cron = compiled.get(key);
  if (!cron) {
    if (compiled.size >= MAX_PATTERNS) compiled.clear();
    cron = new CompiledCron(pattern, timeZone);
    compiled.set(key, cron);
  }
  return cron;
}

/**
 * The times a schedule trigger fires, as epoch milliseconds.
 *
 * Daylight saving (cron in a time zone, handled by croner): a wall-clock time that does not exist
 * on a spring-forward day (02:30 when clocks jump from 02:00 to 03:00) fires once, at the first
 * instant after the gap (03:00 local); a wall-clock time that happens twice on a fall-back day
 * (01:30 when clocks go from 02:00 back to 01:00) fires once, at its first occurrence. Patterns
 * that repeat within the hour (`*\/15 * * * *`) follow real time: they fire in both copies of a
 * repeated hour and not at all in a skipped one. Intervals are exact durations and know no DST.
 */
export class Schedule {
  private readonly cron: CompiledCron | undefined;
  private readonly intervalMs: number | undefined;
  private readonly firstMs: number | undefined;

  /** `createdAtMs` anchors an interval without `startAt`: its first time is one interval later. */
  constructor(trigger: ScheduleTrigger, createdAtMs: number) {
    if (trigger.cron !== undefined) {
      this.cron = compiledCron(trigger.cron, trigger.timeZone);
    } else if (trigger.intervalSeconds !== undefined) {
      this.intervalMs = trigger.intervalSeconds * 1000;
      this.firstMs = trigger.startAt !== undefined ? Date.parse(trigger.startAt) : createdAtMs + this.intervalMs;
    } else {
      this.firstMs = Date.parse(trigger.at!);
    }
  }

  /** The first time strictly after `afterMs`, or null when there is none (a one-time trigger that has passed). */
  nextAfter(afterMs: number): number | null {
    if (this.cron) return this.cron.nextAfter(afterMs);
    const first = this.firstMs!;
    if (afterMs < first) return first;
    if (this.intervalMs === undefined) return null;
    return first + (Math.floor((afterMs - first) / this.intervalMs) + 1) * this.intervalMs;
  }

  /** The last time strictly before `beforeMs`, or null when there is none. */
  lastBefore(beforeMs: number): number | null {
    if (this.cron) return this.cron.lastBefore(beforeMs);
    const first = this.firstMs!;
    if (beforeMs <= first) return null;
    if (this.intervalMs === undefined) return first;
    return first + Math.floor((beforeMs - 1 - first) / this.intervalMs) * this.intervalMs;
  }

  /** Times in `[fromMs, toMs]`, oldest first, at most `limit` (`fromMs` itself is included when it is a time). */
  between(fromMs: number, toMs: number, limit: number): number[] {
    const times: number[] = [];
    let next = this.nextAfter(fromMs - 1);
    while (next !== null && next <= toMs && times.length < limit) {
      times.push(next);
      next = this.nextAfter(next);
    }
    return times;
  }

  /** How many times fall in `[fromMs, toMs]`, counting no further than `cap`. */
  countBetween(fromMs: number, toMs: number, cap: number): number {
    if (this.intervalMs !== undefined && this.firstMs !== undefined) {
      const start = Math.max(fromMs, this.firstMs);
      if (toMs < start) return 0;
      const firstIndex = Math.ceil((start - this.firstMs) / this.intervalMs);
      const lastIndex = Math.floor((toMs - this.firstMs) / this.intervalMs);
      return Math.min(cap, Math.max(0, lastIndex - firstIndex + 1));
    }
    return this.between(fromMs, toMs, cap).length;
  }
}
