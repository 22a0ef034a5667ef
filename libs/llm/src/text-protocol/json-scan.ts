/**
 * Low-level scanning shared by the lenient JSON parser and the action extractor. Both must agree on
 * where a string ends, otherwise a brace inside a string value would end the object early.
 */

const SMART_DOUBLE = '\u201c\u201d'; // “ ”
const SMART_SINGLE = '\u2018\u2019'; // ‘ ’

/** Whether `ch` can open a string: ASCII or typographic (smart) quotes. */
export function isQuote(ch: string | undefined): boolean {
  return ch !== undefined && (ch === '"' || ch === "'" || SMART_DOUBLE.includes(ch) || SMART_SINGLE.includes(ch));
}

/**
 * Which characters may close a string opened by `open`. An ASCII quote closes only with itself, so a
 * valid JSON string may contain smart quotes; a smart-quoted string (from chat UIs and word
 * processors) may close with either form.
 */
function closersFor(open: string): string {
  if (open === '"' || open === "'") return open;
  return SMART_DOUBLE.includes(open) ? `${SMART_DOUBLE}"` : `${SMART_SINGLE}'`;
}

/**
 * Whether the quote at `index` really ends the string. Models write unescaped quotes inside values
 * (`'it's'`, `"say "hi" now"`), so a quote only counts as closing when what follows can follow a
 * string: a separator, a closer, the end, or (for a missing comma) a new line or a key starting.
 */
function closesString(text: string, index: number): boolean {
  let i = index + 1;
  let sawNewline = false;
  while (i < text.length && /\s/.test(text[i]!)) {
    if (text[i] === '\n') sawNewline = true;
    i++;
  }
  if (i >= text.length) return true;
  const next = text[i]!;
  return ',:}])'.includes(next) || (isQuote(next) && (sawNewline || startsKey(text, i)));
}

/** Whether the quoted token at `index` is followed by a colon, i.e. a key after a missing comma. */
function startsKey(text: string, index: number): boolean {
  const close = text.indexOf(text[index]!, index + 1);
  return close !== -1 && /^\s*:/.test(text.slice(close + 1, close + 20));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '/': '/',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

/** A string read from `start` (its opening quote); `end` is the index after the closing quote. */
export interface ScannedString {
  value: string;
  end: number;
  /** False when the text ended first (a truncated reply); the value is what was there. */
  terminated: boolean;
}

/** Reads the string whose opening quote is at `start`, decoding escapes leniently. */
export function scanString(text: string, start: number): ScannedString {
  const closers = closersFor(text[start]!);
  // Windows paths are written with single backslashes ("C:\Users\new"); decoding `\n` there would
  // corrupt the path, so such strings only unescape doubled backslashes and quotes.
  const path = /^(?:[A-Za-z]:\\|\\\\)/.test(text.slice(start + 1, start + 4));
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      if (path) {
        value += next === '\\' || isQuote(next) ? next : `\\${next}`;
        i += 2;
        continue;
      }
      const hex = next === 'u' ? text.slice(i + 2, i + 6) : '';
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        value += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else {
        // Unknown escapes (Windows paths, regexes) keep their backslash rather than failing.
        value += SIMPLE_ESCAPES[next] ?? `\\${next}`;
        i += 2;
      }
      continue;
    }
    if (closers.includes(ch) && closesString(text, i)) return { value, end: i + 1, terminated: true };
    value += ch;
    i++;
  }
  return { value, end: text.length, terminated: false };
}

const PAIRS: Record<string, string> = { '{': '}', '[': ']' };

/**
 * Finds the end (exclusive) of the bracketed value opening at `start`, skipping brackets inside
 * strings. A closer of the wrong kind implicitly closes the inner brackets (a forgotten `]`).
 * Returns -1 when the text ends first (a truncated or unbalanced reply).
 */
export function findBalancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let i = start;
  while (i < text.length) {
    const ch = text[i]!;
    if (isQuote(ch) && stack.length > 0) {
      i = scanString(text, i).end;
      continue;
    }
    const closer = PAIRS[ch];
    if (closer) stack.push(closer);
    else if ((ch === '}' || ch === ']') && stack.includes(ch)) {
      while (stack.pop() !== ch) {
        // Pop the brackets the model forgot to close.
      }
      if (stack.length === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

// Each unclosed brace costs a scan to the end of the text; degenerate output (`{{{{...`) would make
// that quadratic, so after this many the remaining text is treated as having no spans.
const MAX_UNCLOSED_SCANS = 32;

/** Start and end (exclusive) of each balanced top-level `{...}` in the text, in order. */
export function balancedObjectSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let unclosed = 0;
  let i = text.indexOf('{');
  while (i !== -1) {
    const end = findBalancedEnd(text, i);
    if (end === -1) {
      // An unclosed brace is no span; look for the next one after it.
      if (++unclosed >= MAX_UNCLOSED_SCANS) break;
      i = text.indexOf('{', i + 1);
      continue;
    }
    spans.push([i, end]);
    i = text.indexOf('{', end);
  }
  return spans;
}
