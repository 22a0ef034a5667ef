/** One difference between two JSON values, at a path such as `labels.team` or `tools[2]`. */
interface JsonChange {
  path: string;
  op: 'add' | 'remove' | 'replace';
  before?: unknown;
  after?: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `parent.key`, or `parent["a/b"]` for a key that is not an identifier (label keys may hold `.` and `/`). */
function keyPath(parent: string, key: string): string {
  if (IDENTIFIER.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(before: Json | undefined, after: Json | undefined, path: string, changes: JsonChange[]): void {
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    changes.push({ path, op: 'add', after });
    return;
  }
  if (after === undefined) {
    changes.push({ path, op: 'remove', before });
    return;
  }
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) walk(before[key], after[key], keyPath(path, key), changes);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) walk(before[i], after[i], `${path}[${i}]`, changes);
    return;
  }
  if (before !== after) changes.push({ path, op: 'replace', before, after });
}

/**
 * What changed from one version's spec to another's, leaf by leaf: objects by key (in key
 * order), arrays by index (an item inserted early shows as the items after it replaced, and one
 * added at the end). A whole value of another kind (an object where a string was) is one replace.
 */
export function diffJson(before: unknown, after: unknown): JsonChange[] {
  const changes: JsonChange[] = [];
  walk(before as Json, after as Json, '', changes);
  return changes;
}
