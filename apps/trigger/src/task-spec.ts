import { TaskSpec as TaskSpecShape, type TriggerSpec } from '@platform/contracts';
import { errors } from '@platform/service-kit';
import { Cron } from 'croner';
import type { z } from 'zod';
import { compileEventFilter, DEFAULT_FILTER_LIMITS, type FilterLimits } from './event-filter.js';
import { ErrorCodes } from './error-codes.js';

// The spec's shape and its self-contained rules live in @platform/contracts (the api validates and
// documents them too); this service adds the checks that need its engines.
export { ConditionTrigger, MisfirePolicy, ORCHESTRATOR_EXECUTOR, ScheduleTrigger } from '@platform/contracts';

function cronProblem(pattern: string, timeZone: string): string | undefined {
  try {
    const job = new Cron(pattern, { timezone: timeZone, paused: true });
    job.stop();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Compiles and resolves everything the expression names (functions, `~=` patterns): its problem, prefixed with its FilterError code. */
function expressionProblem(expression: string, limits: FilterLimits): string | undefined {
  try {
    compileEventFilter(expression, limits);
    return undefined;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return `${typeof code === 'string' ? `[${code}] ` : ''}${(err as Error).message.split('\n').join(' ')}`;
  }
}

/** What this service cannot run of an otherwise well-formed trigger: a cron pattern, a filter or condition expression. */
function engineProblem(trigger: TriggerSpec, limits: FilterLimits): { field: string; message: string } | undefined {
  if (trigger.type === 'schedule' && trigger.cron !== undefined) {
    const problem = cronProblem(trigger.cron, trigger.timeZone);
    return problem ? { field: 'cron', message: `not a valid cron pattern: ${problem}` } : undefined;
  }
  if (trigger.type === 'event' && trigger.filter !== undefined) {
    const problem = expressionProblem(trigger.filter, limits);
    return problem ? { field: 'filter', message: `not a valid filter expression: ${problem}` } : undefined;
  }
  if (trigger.type === 'condition') {
    const problem = expressionProblem(trigger.condition, limits);
    return problem ? { field: 'condition', message: `not a valid condition expression: ${problem}` } : undefined;
  }
  return undefined;
}

/** A task as a client writes it (POST /v1/tasks body, CreateTask spec_json), checked against this service's engines too. */
function taskSpecSchema(limits: FilterLimits) {
  return TaskSpecShape.superRefine((spec, ctx) => {
    const problem = engineProblem(spec.trigger, limits);
    if (problem) ctx.addIssue({ code: 'custom', path: ['trigger', problem.field], message: problem.message });
  });
}
export const TaskSpec = taskSpecSchema(DEFAULT_FILTER_LIMITS);
export type TaskSpec = z.infer<typeof TaskSpec>;
const schemas = new WeakMap<FilterLimits, typeof TaskSpec>();

/**
 * Parses a task spec from JSON. Errors are INVALID_TASK_SPEC naming the field at fault
 * (`trigger.cron: not a valid cron pattern: ...`), with every problem in `details.issues`.
 */
export function parseTaskSpec(
  json: string,
  maxBytes: number,
  filterLimits: FilterLimits = DEFAULT_FILTER_LIMITS,
): TaskSpec {
  if (Buffer.byteLength(json, 'utf8') > maxBytes)
    throw errors.invalidArgument(ErrorCodes.INVALID_TASK_SPEC, `the task spec is larger than ${maxBytes} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw errors.invalidArgument(ErrorCodes.INVALID_TASK_SPEC, 'the task spec is not valid JSON');
  }
  let schema = schemas.get(filterLimits);
  if (!schema) schemas.set(filterLimits, (schema = taskSpecSchema(filterLimits)));
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    field: issue.path.join('.') || '(root)',
    message: issue.message,
  }));
  const first = issues[0]!;
  throw errors.invalidArgument(ErrorCodes.INVALID_TASK_SPEC, `${first.field}: ${first.message}`, {
    details: { issues },
  });
}
