import { compileExpression } from 'filtrex';
import { DEFAULT_FILTER_LIMITS, FilterError, FilterErrorCodes, type FilterLimits } from './filter-errors.js';
import { compileFilterRegex, type FilterRegex } from './filter-regex.js';
import { scanExpression } from './filter-scan.js';

export { DEFAULT_FILTER_LIMITS, FilterError, FilterErrorCodes, type FilterLimits } from './filter-errors.js';

/**
 * A compiled filter: true when the event's data matches, false when it does not; throws a
 * FilterError (FILTER_INPUT_TOO_LONG, FILTER_EVALUATION_FAILED) when the expression fails on
 * this data, so the caller can record why the task did not fire.
 */
export type EventFilter = (data: Record<string, unknown>) => boolean;

/** filtrex's own functions; anything else named in a call is refused at creation. */
const FUNCTIONS = new Set([
  'abs',
  'ceil',
  'floor',
  'log',
  'log2',
  'log10',
  'max',
  'min',
  'round',
  'sqrt',
  'exists',
  'empty',
]);

/**
 * Reads `a.b.c` as a path through the event's own properties (never inherited ones such as
 * `constructor`); a missing step gives `undefined`, so a filter over a field the event lacks
 * is simply false.
 */
function ownPath(name: string, _get: (name: string) => unknown, object: unknown): unknown {
  let value: unknown = object;
  for (const step of name.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

function parse(
  expression: string,
  regexMatch: (text: unknown, pattern: unknown) => boolean,
): (data: unknown) => unknown {
  try {
    // filtrex's typings require `==` and `!=` whenever operators are given: these are its own.
    const operators = {
      '==': (a: unknown, b: unknown) => a === b,
      '!=': (a: unknown, b: unknown) => a !== b,
      '~=': regexMatch,
    };
    return compileExpression(expression, { customProp: ownPath, operators });
  } catch (err) {
    throw new FilterError(FilterErrorCodes.syntax, (err as Error).message.split('\n').join(' '), { cause: err });
  }
}

/**
 * Compiles a filter expression with filtrex (a small expression language with its own grammar:
 * comparisons, `and`/`or`/`not`, arithmetic, `in`, regex `~=`; no access to JavaScript) and
 * resolves everything it names at once: every function must exist, and every `~=` pattern must
 * be a string literal that RE2 compiles within the limits. A problem throws a FilterError naming it.
 */
export function compileEventFilter(expression: string, limits: FilterLimits = DEFAULT_FILTER_LIMITS): EventFilter {
  const patterns = new Map<string, FilterRegex>();
  const regexMatch = (text: unknown, pattern: unknown): boolean => {
    if (typeof pattern !== 'string')
      throw new FilterError(FilterErrorCodes.dynamicPattern, 'the pattern of ~= is not text');
    if (typeof text !== 'string')
      throw new FilterError(
        FilterErrorCodes.evaluationFailed,
        `~= "${pattern.slice(0, 40)}" needs text, got ${text === undefined ? 'a missing field' : typeof text}`,
      );
    let regex = patterns.get(pattern);
    if (!regex) patterns.set(pattern, (regex = compileFilterRegex(pattern, limits)));
    return regex.test(text);
  };
  const evaluate = parse(expression, regexMatch);
  const scanned = scanExpression(expression);
  const unknown = scanned.functionCalls.find((name) => !FUNCTIONS.has(name));
  if (unknown !== undefined)
    throw new FilterError(
      FilterErrorCodes.unknownFunction,
      `there is no function "${unknown}" (there are ${[...FUNCTIONS].join(', ')})`,
    );
  if (scanned.dynamicPatterns > 0)
    throw new FilterError(
      FilterErrorCodes.dynamicPattern,
      'the right side of ~= must be one string literal (a pattern in double quotes)',
    );
  for (const pattern of scanned.patterns) patterns.set(pattern, compileFilterRegex(pattern, limits));
  return (data) => {
    const result: unknown = evaluate(data);
    // filtrex returns (does not throw) what went wrong during an evaluation.
    if (result instanceof FilterError) throw result;
    if (result instanceof Error)
      throw new FilterError(FilterErrorCodes.evaluationFailed, result.message, { cause: result });
    return result === true || (typeof result === 'number' && result !== 0);
  };
}

/** Compiled filters by expression, so matching an event does not parse every task's filter again. */
export class EventFilterCache {
  private readonly compiled = new Map<string, EventFilter>();

  constructor(
    private readonly maxEntries: number,
    private readonly limits: FilterLimits = DEFAULT_FILTER_LIMITS,
  ) {}

  get(expression: string): EventFilter {
    let filter = this.compiled.get(expression);
    if (!filter) {
      filter = compileEventFilter(expression, this.limits);
      if (this.compiled.size >= this.maxEntries) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(expression, filter);
    }
    return filter;
  }
}
