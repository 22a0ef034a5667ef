import { compileExpression } from 'filtrex';

/** A compiled filter: true when the event's data matches. */
export type EventFilter = (data: Record<string, unknown>) => boolean;

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

/**
 * Compiles a filter expression with filtrex (a small expression language with its own grammar:
 * comparisons, `and`/`or`/`not`, arithmetic, `in`, regex `~=`; no access to JavaScript). A
 * malformed expression throws, with filtrex's parse message.
 */
export function compileEventFilter(expression: string): EventFilter {
  const evaluate = compileExpression(expression, { customProp: ownPath });
  return (data) => {
    const result: unknown = evaluate(data);
    return result === true || (typeof result === 'number' && result !== 0);
  };
}

/** Compiled filters by expression, so matching an event does not parse every task's filter again. */
export class EventFilterCache {
  private readonly compiled = new Map<string, EventFilter>();

  constructor(private readonly maxEntries: number) {}

  get(expression: string): EventFilter {
    let filter = this.compiled.get(expression);
    if (!filter) {
      filter = compileEventFilter(expression);
      if (this.compiled.size >= this.maxEntries) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(expression, filter);
    }
    return filter;
  }
}
