import { errors } from '@platform/service-kit';
import { DAY_MS, utcDay } from './utc-day.js';
import { ErrorCodes } from './error-codes.js';

/** The longest range one usage request may ask for. */
const MAX_USAGE_DAYS = 366;

function dayOf(value: string, name: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  // Date.UTC rolls 2026-02-30 over to March: a real day formats back to itself.
  if (!match || Number.isNaN(time) || utcDay(new Date(time)) !== value) {
    throw errors.invalidArgument(ErrorCodes.INVALID_DAY, `${name} must be a day as YYYY-MM-DD (got '${value}')`);
  }
  return time;
}

/**
 * The checked day range of a usage request: an empty `to` is today (UTC) and an empty `from` is
 * `to`; `from` may not be after `to`, and the range holds at most {@link MAX_USAGE_DAYS} days.
 */
export function usageRangeOf(from: string, to: string, now: Date): { fromDay: string; toDay: string } {
  const toDay = to || utcDay(now);
  const fromDay = from || toDay;
  const start = dayOf(fromDay, 'from');
  const end = dayOf(toDay, 'to');
  if (start > end) throw errors.invalidArgument(ErrorCodes.INVALID_RANGE, `from (${fromDay}) is after to (${toDay})`);
  if ((end - start) / DAY_MS + 1 > MAX_USAGE_DAYS)
    throw errors.invalidArgument(ErrorCodes.INVALID_RANGE, `a usage request covers at most ${MAX_USAGE_DAYS} days`);
  return { fromDay, toDay };
}
