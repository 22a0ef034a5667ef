import type { PlanSpec } from './plan-schema.js';

export type PlanProblem =
  | { kind: 'duplicate_id'; message: string }
  | { kind: 'unknown_dependency'; message: string }
  | { kind: 'cycle'; message: string; cycle: string[] }
  | { kind: 'over_decomposition'; message: string }
  | { kind: 'unknown_role'; message: string }
  | { kind: 'tool_not_allowed'; message: string };

/**
 * A cycle of the dependency graph, named (`a → b → a`), or undefined: depth-first search with
 * three colours (white: unseen, grey: on the current path, black: done); meeting a grey node
 * closes a cycle, which is the path from that node on.
 */
export function findCycle(plan: PlanSpec): string[] | undefined {
  const deps = new Map(plan.subtasks.map((s) => [s.id, s.dependencies]));
  const colour = new Map<string, 'grey' | 'black'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    colour.set(id, 'grey');
    path.push(id);
    for (const dep of deps.get(id) ?? []) {
      const seen = colour.get(dep);
      if (seen === 'grey') return [...path.slice(path.indexOf(dep)), dep];
      if (seen === undefined && deps.has(dep)) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    path.pop();
    colour.set(id, 'black');
    return undefined;
  };
  for (const { id } of plan.subtasks) {
    if (colour.has(id)) continue;
    const found = visit(id);
    if (found) return found.reverse(); // as work flows: a dependency before what needs it
  }
  return undefined;
}

/**
 * Kahn's algorithm: repeatedly take the subtasks whose dependencies are all taken, in plan order.
 * Left-over subtasks mean a cycle (the error text the seed gives).
 */
export function executionOrder(plan: PlanSpec): { ok: true; order: string[] } | { ok: false; error: string } {
  const remaining = new Map(plan.subtasks.map((s) => [s.id, new Set(s.dependencies)]));
  const dependents = new Map<string, string[]>();
  for (const s of plan.subtasks)
    for (const dep of s.dependencies) dependents.set(dep, [...(dependents.get(dep) ?? []), s.id]);
  const queue = plan.subtasks.filter((s) => s.dependencies.length === 0).map((s) => s.id);
  const order: string[] = [];
  while (queue.length) {
    const id = queue.shift()!;
    order.push(id);
    for (const next of dependents.get(id) ?? []) {
      const waits = remaining.get(next)!;
      waits.delete(id);
      if (waits.size === 0) queue.push(next);
    }
  }
  if (order.length !== plan.subtasks.length)
    return { ok: false, error: 'Cycle detected in dependency graph. Cannot compute topological order.' };
  return { ok: true, order };
}

export interface PlanRules {
  maxSubtasks: number;
  /** The roles a subtask may name. */
  roles: readonly string[];
  /** The role of a subtask that names none. */
  executor: string;
  /** Whether a role's profile allows a tool (a subtask's child run may use only its named tool). */
  mayUseTool: (role: string, tool: string) => boolean;
}

/** Checks a plan: unique ids, known dependencies and roles, tools its roles may use, no cycle, not too many subtasks; then its execution order. */
export function validatePlan(
  plan: PlanSpec,
  options: PlanRules,
): { ok: true; order: string[] } | { ok: false; problem: PlanProblem } {
  if (plan.subtasks.length > options.maxSubtasks) {
    return {
      ok: false,
      problem: {
        kind: 'over_decomposition',
        message: `the plan has ${plan.subtasks.length} subtasks, more than ${options.maxSubtasks}: merge subtasks that use the same tool or follow one another`,
      },
    };
  }
  const ids = new Set<string>();
  for (const s of plan.subtasks) {
    if (ids.has(s.id))
      return { ok: false, problem: { kind: 'duplicate_id', message: `subtask id '${s.id}' is used twice` } };
    ids.add(s.id);
  }
  for (const s of plan.subtasks) {
    const unknown = s.dependencies.find((d) => !ids.has(d));
    if (unknown)
      return {
        ok: false,
        problem: {
          kind: 'unknown_dependency',
          message: `subtask '${s.id}' depends on '${unknown}', which is not in the plan`,
        },
      };
    if (s.role && !options.roles.includes(s.role))
      return {
        ok: false,
        problem: {
          kind: 'unknown_role',
          message: `subtask '${s.id}' names the role '${s.role}'; the roles are ${options.roles.join(', ')}`,
        },
      };
    const role = s.role ?? options.executor;
    if (s.tool && !options.mayUseTool(role, s.tool)) {
      return {
        ok: false,
        problem: {
          kind: 'tool_not_allowed',
          message: `subtask '${s.id}' names the tool '${s.tool}', which the role '${role}' may not use: name another tool or another role`,
        },
      };
    }
  }
  const cycle = findCycle(plan);
  if (cycle)
    return {
      ok: false,
      problem: { kind: 'cycle', cycle, message: `the dependencies form a cycle: ${cycle.join(' → ')}` },
    };
  const order = executionOrder(plan);
  if (!order.ok) return { ok: false, problem: { kind: 'cycle', cycle: [], message: order.error } };
  return { ok: true, order: order.order };
}

/** Fills `{key}` templates in strings (deeply) from the shared context; lists the keys that are missing. */
export function fillTemplates(
  value: unknown,
  context: Readonly<Record<string, string>>,
): { value: unknown; missing: string[] } {
  const missing = new Set<string>();
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(/\{([A-Za-z0-9_-]{1,64})\}/g, (whole, key: string) => {
        if (key in context) return context[key]!;
        missing.add(key);
        return whole;
      });
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, fill(inner)]));
    return v;
  };
  return { value: fill(value), missing: [...missing] };
}
