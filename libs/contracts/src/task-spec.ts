import { z } from 'zod';
import { ToolName } from './ids.js';
import { EventName } from './trigger-events.js';

// A trigger task as a client writes it (POST /v1/tasks, the trigger service's CreateTask): the
// shape and the rules that need nothing but the spec. The trigger service adds the checks that
// need its engines (a cron pattern it can schedule, filter and condition expressions it can
// compile) on top of these; the api validates with these and documents them (OpenAPI).

const MAX_INTERVAL_SECONDS = 366 * 24 * 60 * 60;

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A schedule trigger: exactly one of `cron` (5 or 6 fields, read in `timeZone`), `intervalSeconds`
 * (every n seconds from `startAt`, default the task's creation) or `at` (one time).
 */
export const ScheduleTrigger = z
  .object({
    type: z.literal('schedule'),
    cron: z.string().min(1).max(200).optional(),
    timeZone: z.string().min(1).max(64).default('UTC'),
    intervalSeconds: z.number().int().min(1).max(MAX_INTERVAL_SECONDS).optional(),
    startAt: z.iso.datetime({ offset: true }).optional(),
    at: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .superRefine((trigger, ctx) => {
    const kinds = [trigger.cron, trigger.intervalSeconds, trigger.at].filter((v) => v !== undefined).length;
    if (kinds !== 1)
      ctx.addIssue({
        code: 'custom',
        path: ['cron'],
        message: 'exactly one of cron, intervalSeconds or at is required',
      });
    if (!isTimeZone(trigger.timeZone))
      ctx.addIssue({ code: 'custom', path: ['timeZone'], message: `'${trigger.timeZone}' is not an IANA time zone` });
    if (trigger.startAt !== undefined && trigger.intervalSeconds === undefined) {
      ctx.addIssue({ code: 'custom', path: ['startAt'], message: 'startAt is only for intervalSeconds' });
    }
  });
export type ScheduleTrigger = z.infer<typeof ScheduleTrigger>;

/**
 * An event trigger: external events of the tenant with this `source` and `eventType`, whose data
 * matches `filter` (a filtrex expression over the event's data; absent = every such event).
 */
const EventTrigger = z
  .object({
    type: z.literal('event'),
    source: EventName,
    eventType: EventName,
    filter: z.string().min(1).max(2_000).optional(),
  })
  .strict();
type EventTrigger = z.infer<typeof EventTrigger>;

/**
 * A condition trigger: `tool` is called with `arguments` every `intervalSeconds` (through the
 * normal tool protocol), and the task fires when `condition` (a filtrex expression over
 * `result`, the tool's output) becomes true — once per crossing, and not again within
 * `cooldownSeconds` of the last fire.
 */
export const ConditionTrigger = z
  .object({
    type: z.literal('condition'),
    tool: ToolName,
    arguments: z.record(z.string(), z.unknown()).default({}),
    intervalSeconds: z.number().int().min(1).max(MAX_INTERVAL_SECONDS),
    condition: z.string().min(1).max(2_000),
    cooldownSeconds: z.number().int().min(0).max(MAX_INTERVAL_SECONDS).default(0),
  })
  .strict();
export type ConditionTrigger = z.infer<typeof ConditionTrigger>;

export const TriggerSpec = z.discriminatedUnion('type', [ScheduleTrigger, EventTrigger, ConditionTrigger]);
export type TriggerSpec = z.infer<typeof TriggerSpec>;

/**
 * What happens to scheduled times that passed while no replica could fire them (downtime, or a
 * time later than the misfire grace): `skip` them (recorded as one skipped fire), `fire_once`
 * (one fire stands for all of them), or `catch_up` (one fire per missed time not older than
 * `windowSeconds`; older ones are skipped).
 */
export const MisfirePolicy = z
  .object({
    policy: z.enum(['skip', 'fire_once', 'catch_up']).default('fire_once'),
    windowSeconds: z.number().int().min(1).max(MAX_INTERVAL_SECONDS).optional(),
  })
  .strict()
  .superRefine((misfire, ctx) => {
    if (misfire.policy === 'catch_up' && misfire.windowSeconds === undefined) {
      ctx.addIssue({ code: 'custom', path: ['windowSeconds'], message: 'catch_up needs windowSeconds' });
    }
    if (misfire.policy !== 'catch_up' && misfire.windowSeconds !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['windowSeconds'], message: 'windowSeconds is only for catch_up' });
    }
  });
export type MisfirePolicy = z.infer<typeof MisfirePolicy>;

/** The orchestrator executor's action: the instruction the agent gets, and optionally its profile. */
const TaskAction = z
  .object({
    instruction: z.string().min(1).max(16_000).optional(),
    profile: z.string().min(1).max(64).optional(),
    /** A custom executor's configuration, passed to it as is. */
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
type TaskAction = z.infer<typeof TaskAction>;

/**
 * Where a fire's result goes. `none` keeps it in the fire history only; `sse` puts it on the
 * tenant's notification stream (GET /v1/notifications); `webhook` POSTs it, signed, and puts it on
 * the stream too. Approval requests and expiries of triggered runs reach the stream whatever the output.
 */
const TaskOutput = z
  .object({
    channel: z.enum(['none', 'sse', 'webhook']).default('none'),
    /** For `webhook`: where each fire's outcome is POSTed, signed (docs/triggers.md#receiving-webhooks). */
    url: z
      .url({ protocol: /^https?$/ })
      .max(2_000)
      .optional(),
  })
  .strict()
  .superRefine((output, ctx) => {
    if (output.channel === 'webhook' && output.url === undefined)
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'the webhook channel needs a url' });
    if (output.channel !== 'webhook' && output.url !== undefined)
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'url is only for the webhook channel' });
  });
type TaskOutput = z.infer<typeof TaskOutput>;

export const ORCHESTRATOR_EXECUTOR = 'orchestrator';

/** A task as a client writes it (POST /v1/tasks body, CreateTask spec_json). */
export const TaskSpec = z
  .object({
    name: z.string().min(1).max(200).optional(),
    trigger: TriggerSpec,
    misfire: MisfirePolicy.default({ policy: 'fire_once' }),
    /** `orchestrator` (the default) or the name of a custom executor served by a runner. */
    executor: z.union([z.literal(ORCHESTRATOR_EXECUTOR), ToolName]).default(ORCHESTRATOR_EXECUTOR),
    action: TaskAction.default({}),
    output: TaskOutput.default({ channel: 'none' }),
  })
  .strict()
  .superRefine((spec, ctx) => {
    if (spec.executor === ORCHESTRATOR_EXECUTOR && !spec.action.instruction) {
      ctx.addIssue({
        code: 'custom',
        path: ['action', 'instruction'],
        message: 'the orchestrator executor needs an instruction',
      });
    }
    if (spec.executor === ORCHESTRATOR_EXECUTOR && spec.action.config !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['action', 'config'],
        message: 'config is for custom executors; the orchestrator takes an instruction',
      });
    }
  });
export type TaskSpec = z.infer<typeof TaskSpec>;
