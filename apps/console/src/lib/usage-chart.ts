import type { UsageDay } from '../api/types.js';

/** One bar group of the usage chart (a day), in the chart's coordinates. */
export interface UsageBar {
  day: string;
  x: number;
  width: number;
  /** Height of the turns bar and of the tokens bar, each scaled to its own maximum. */
  turnsHeight: number;
  tokensHeight: number;
  turns: number;
  tokens: number;
}

/** Every day from `from` to `to` (inclusive, `YYYY-MM-DD`, UTC). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end && days.length <= 366; t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** The bars of a usage chart `width` x `height`: one group per day of the range (days without turns are zero). */
export function usageBars(
  days: readonly UsageDay[],
  from: string,
  to: string,
  width: number,
  height: number,
): UsageBar[] {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const range = daysBetween(from, to);
  const maxTurns = Math.max(1, ...days.map((d) => d.turns));
  const maxTokens = Math.max(1, ...days.map((d) => d.inputTokens + d.outputTokens));
  const slot = width / Math.max(range.length, 1);
  return range.map((day, i) => {
    const d = byDay.get(day);
    const turns = d?.turns ?? 0;
    const tokens = (d?.inputTokens ?? 0) + (d?.outputTokens ?? 0);
    return {
      day,
      x: i * slot,
      width: slot,
      turns,
      tokens,
      turnsHeight: (turns / maxTurns) * height,
      tokensHeight: (tokens / maxTokens) * height,
    };
  });
}
