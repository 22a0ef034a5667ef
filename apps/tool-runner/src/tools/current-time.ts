import { defineTool, ToolFailure, type ToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';

function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** "+09:00"-style offset of `timeZone` at `at`. */
function utcOffset(at: Date, timeZone: string): string {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const offset = name.replace('GMT', '');
  return offset === '' ? '+00:00' : offset;
}

function localTime(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts['year']}-${parts['month']}-${parts['day']} ${parts['hour']}:${parts['minute']}:${parts['second']} (${parts['weekday']})`;
}

/** `current_time`: the current date and time, in an optional IANA time zone (default UTC). */
export function currentTimeTool(now: () => Date = () => new Date()): ToolDefinition {
  return defineTool({
    name: 'current_time',
    description:
      'Returns the current date and time. Pass an IANA time zone such as "Asia/Tokyo" or "America/New_York" for local time; default UTC.',
    input: z.object({
      timezone: z.string().min(1).max(64).optional().describe('IANA time zone name, e.g. "Europe/Berlin"'),
    }),
    output: z.object({ timezone: z.string(), iso: z.string(), local: z.string(), utcOffset: z.string() }),
    timeoutMs: 2_000,
    sideEffect: 'none',
    version: '1.0.0',
    handler: async ({ timezone = 'UTC' }) => {
      if (!isKnownTimeZone(timezone))
        throw new ToolFailure(`'${timezone}' is not a known IANA time zone (for example "Asia/Tokyo")`, 'invalid');
      const at = now();
      return { timezone, iso: at.toISOString(), local: localTime(at, timezone), utcOffset: utcOffset(at, timezone) };
    },
  });
}
