/**
 * What the simulated model can make of a user's text on its own: arithmetic it can hand to
 * `calculator`, and time questions it can hand to `current_time`. Nothing else is guessed.
 */

/** A tool call the text asks for, with the words to name it by in the answer. */
export interface Intent {
  tool: 'calculator' | 'current_time';
  arguments: Record<string, string>;
}

// Places people ask the time of, by the IANA zone `current_time` takes.
const PLACES: ReadonlyArray<readonly [RegExp, string, string]> = [
  [/\btokyo\b/i, 'Tokyo', 'Asia/Tokyo'],
  [/\blondon\b/i, 'London', 'Europe/London'],
  [/\bparis\b/i, 'Paris', 'Europe/Paris'],
  [/\bberlin\b/i, 'Berlin', 'Europe/Berlin'],
  [/\bmadrid\b/i, 'Madrid', 'Europe/Madrid'],
  [/\brome\b/i, 'Rome', 'Europe/Rome'],
  [/\bmoscow\b/i, 'Moscow', 'Europe/Moscow'],
  [/\bnew york\b|\bnyc\b/i, 'New York', 'America/New_York'],
  [/\bchicago\b/i, 'Chicago', 'America/Chicago'],
  [/\bdenver\b/i, 'Denver', 'America/Denver'],
  [/\blos angeles\b|\bsan francisco\b|\bseattle\b/i, 'Los Angeles', 'America/Los_Angeles'],
  [/\btoronto\b/i, 'Toronto', 'America/Toronto'],
  [/\bs[aã]o paulo\b/i, 'São Paulo', 'America/Sao_Paulo'],
  [/\bsydney\b/i, 'Sydney', 'Australia/Sydney'],
  [/\bsingapore\b/i, 'Singapore', 'Asia/Singapore'],
  [/\bhong kong\b/i, 'Hong Kong', 'Asia/Hong_Kong'],
  [/\bbeijing\b|\bshanghai\b/i, 'Shanghai', 'Asia/Shanghai'],
  [/\bdelhi\b|\bmumbai\b|\bindia\b/i, 'India', 'Asia/Kolkata'],
  [/\bdubai\b/i, 'Dubai', 'Asia/Dubai'],
  [/\butc\b|\bgmt\b/i, 'UTC', 'UTC'],
];

const IANA_ZONE = /\b(?:Africa|America|Asia|Atlantic|Australia|Europe|Indian|Pacific)\/[A-Za-z_]+(?:\/[A-Za-z_]+)?\b/g;
const ASKS_TIME = /\b(?:time|clock|date|what day)\b/i;

// A run of arithmetic characters that holds at least one operator between two operands.
const EXPRESSION_RUN = /[-(\d][\d\s.()+\-*/^%×÷]*/g;
const HAS_OPERATION = /[\d)]\s*[-+*/^%×÷]\s*[-(\d]/;
const DATE_LIKE = /^\d{4}-\d{1,2}-\d{1,2}$/;

function balanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    depth += char === '(' ? 1 : char === ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** Trims what cannot end an expression (".", a dangling operator, an unmatched bracket). */
function tidyExpression(run: string): string {
  let text = run.replace(/×/g, '*').replace(/÷/g, '/').trim();
  for (let previous = ''; previous !== text;) {
    previous = text;
    text = text.replace(/[\s.+\-*/^%]+$/, '').trim();
    if (!balanced(text) && text.startsWith('(')) text = text.slice(1);
    if (!balanced(text) && text.endsWith(')')) text = text.slice(0, -1);
  }
  return text;
}

/** The arithmetic expressions in `text`, as the calculator takes them. */
export function arithmeticIn(text: string): string[] {
  const found: string[] = [];
  for (const [run] of text.matchAll(EXPRESSION_RUN)) {
    const expression = tidyExpression(run);
    if (HAS_OPERATION.test(expression) && balanced(expression) && !DATE_LIKE.test(expression)) found.push(expression);
  }
  return found;
}

/** The time zones `text` asks the time of (UTC when it asks the time of nowhere in particular). */
export function timeZonesIn(text: string): string[] {
  if (!ASKS_TIME.test(text)) return [];
  const zones = [...text.matchAll(IANA_ZONE)].map((m) => m[0]);
  for (const [pattern, , zone] of PLACES) if (pattern.test(text)) zones.push(zone);
  if (zones.length === 0) zones.push('UTC');
  return [...new Set(zones)];
}

/** How the answer names a zone: the place it was asked by, else the zone itself. */
export function placeOf(zone: string): string {
  return PLACES.find(([, , z]) => z === zone)?.[1] ?? zone;
}

/** The tool calls `text` asks for, arithmetic first, in the order they appear. */
export function intentsOf(text: string): Intent[] {
  return [
    ...arithmeticIn(text).map((expression): Intent => ({ tool: 'calculator', arguments: { expression } })),
    ...timeZonesIn(text).map((timezone): Intent => ({ tool: 'current_time', arguments: { timezone } })),
  ];
}
