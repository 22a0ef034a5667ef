import { childPath } from './well-formed-text.js';

/** A number of a JSON text that a JavaScript reader (JSON.parse, and the platform's services) cannot keep exactly. */
export interface InexactNumber {
  /** JSON path of the number, e.g. `$.metadata.orderId`. */
  path: string;
  /** The number as the text wrote it (at most 40 characters). */
  source: string;
}

/** A marker the parse leaves where an inexact number stood, found again by the walk. */
class Inexact {
  constructor(readonly source: string) {}
}

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A JSON number's decimal value in one spelling: its significant digits and exponent (`1.50e2` and `150` alike). */
function decimalOf(text: string): string {
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = NUMBER.exec(text) ?? [];
  let digits = (whole + fraction).replace(/^0+/, '');
  let power = Number(exponent) - fraction.length;
  if (!digits) return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    power += 1;
  }
  return `${sign}${digits}e${power}`;
}

/**
 * Whether `value`, parsed from `source`, is the number the text wrote: an integer written without
 * a fraction or exponent must be a safe integer (|n| ≤ 2^53−1; past it neighbours share a double),
 * any other number must have the same decimal value as the double it became (so `0.1` and `1.50`
 * pass, `0.1000000000000000000001`, `1e400` and `1e-400` do not).
 */
function keptExactly(source: string, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (/^-?\d+$/.test(source)) return Number.isSafeInteger(value);
  return decimalOf(source) === decimalOf(String(value));
}

/**
 * The first number of the JSON text `json` (in document order) that JavaScript cannot keep exactly
 * — it would be read, stored and sent back as another number — with its path; undefined when every
 * number is kept, or `json` is not JSON (the caller's parse says so). Reads each number as written
 * (JSON.parse's reviver source, Node 21+).
 */
export function findInexactNumber(json: string, root = '$'): InexactNumber | undefined {
  let value: unknown;
  let any = false;
  try {
    value = JSON.parse(json, (_key, parsed: unknown, context?: { source?: string }) => {
      const source = context?.source;
      if (typeof parsed !== 'number' || source === undefined || keptExactly(source, parsed)) return parsed;
      any = true;
      return new Inexact(source);
    });
  } catch {
    return undefined;
  }
  if (!any) return undefined;
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: root }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (current instanceof Inexact) return { path, source: current.source.slice(0, 40) };
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push({ value: current[i], path: `${path}[${i}]` });
    } else if (current && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--)
        pending.push({ value: entries[i]![1], path: childPath(path, entries[i]![0]) });
    }
  }
  return undefined;
}
