import { codesOf, SharedErrorCodes, type ErrorCodeSpec } from '@platform/service-kit';

/**
 * Every error code this service raises besides service-kit's shared ones (`SharedErrorCodes`),
 * with the kind it is raised with and what it means.
 */
const triggerErrorCatalogue = {
  INVALID_TASK_SPEC: {
    kind: 'invalid_argument',
    description:
      'The task spec is not valid JSON, too large, or breaks its schema; the message names the field, `details.issues` lists every problem.',
  },
  TASK_NOT_FOUND: { kind: 'not_found', description: 'No task with this id for this tenant.' },
  FIRE_NOT_FOUND: { kind: 'not_found', description: 'No fire with this id for this tenant.' },
  TASK_STATUS_CONFLICT: {
    kind: 'failed_precondition',
    description:
      "The task's status does not allow the change (e.g. resuming a completed task); `details.status` says which it is.",
  },
  CONDITION_TOOL_NOT_ALLOWED: {
    kind: 'invalid_argument',
    description: "The tool gate refused a condition's tool (`trigger.tool`); `details.reason` carries the gate's code.",
  },
  EXECUTOR_NOT_ALLOWED: {
    kind: 'invalid_argument',
    description:
      "The tool gate refused the task's custom executor (`executor`); `details.reason` carries the gate's code.",
  },
  INVALID_PAGE_SIZE: { kind: 'invalid_argument', description: 'A page size outside 0 and TRIGGER_MAX_PAGE_SIZE.' },
  INVALID_USER_ID: { kind: 'invalid_argument', description: '`user_id` is not a valid user id.' },
  INVALID_REQUEST_ID: { kind: 'invalid_argument', description: '`request_id` is not a valid request id.' },
  INVALID_EVENT: {
    kind: 'invalid_argument',
    description: 'An external event that is too large, not JSON, or not an object.',
  },
  EMPTY_TOOL_RESULT: { kind: 'internal', description: 'The orchestrator answered a tool call without its result.' },
  TOOL_BATCH_MISMATCH: {
    kind: 'internal',
    description: 'The orchestrator answered a batch of tool calls with a different number of results.',
  },
} as const satisfies Record<string, ErrorCodeSpec>;

/** The `errorCode` a fire ends with when the platform, not the run, decided its outcome. */
const fireErrorCatalogue = {
  EXECUTOR_BUSY: {
    description: "The custom executor's runner was at its limit and ran nothing; the fire is offered again.",
  },
  EXECUTOR_FAILED: {
    description: 'A batched custom executor failed in a way that names no code; the fire is retried.',
  },
  EXECUTOR_ERROR: { description: 'The executor threw; the fire is retried.' },
  MISFIRE_SKIPPED: { description: 'The fire was due while no replica could run it, and the task skips misfires.' },
  APPROVAL_EXPIRED: { description: "The triggered run's approval expired before anyone answered it." },
} as const satisfies Record<string, Pick<ErrorCodeSpec, 'description'>>;

/**
 * Why a filter (or condition) expression cannot be compiled (`creation`: the code is in
 * INVALID_TASK_SPEC's message and issues), or why one evaluation failed (`evaluation`: the task's
 * `lastError`). docs/triggers.md's table of creation codes is generated from this list.
 */
export const filterErrorCatalogue = {
  FILTER_SYNTAX: { at: 'creation', problem: 'the expression does not parse (`Parse error …`)' },
  FILTER_UNKNOWN_FUNCTION: { at: 'creation', problem: 'a call of a function the language does not have' },
  FILTER_INVALID_PATTERN: {
    at: 'creation',
    problem: 'a `~=` pattern that is not RE2 (a lookaround, a backreference, an unclosed group)',
  },
  FILTER_DYNAMIC_PATTERN: { at: 'creation', problem: 'a `~=` whose pattern is not one string literal' },
  FILTER_PATTERN_TOO_LARGE: { at: 'creation', problem: 'a pattern over the length or compiled-size limit' },
  FILTER_INPUT_TOO_LONG: {
    at: 'evaluation',
    problem: 'the text matched by `~=` is longer than TRIGGER_FILTER_MAX_INPUT_CHARS',
  },
  FILTER_EVALUATION_FAILED: {
    at: 'evaluation',
    problem: 'the expression failed on the event (e.g. `price < 300` where `price` is text)',
  },
} as const satisfies Record<string, { at: 'creation' | 'evaluation'; problem: string }>;

/**
 * Who a task's tool is checked for at the tool gate, the code the task is refused with, and the field
 * the refusal names. docs/triggers.md's tool gate table is generated from this and `gateReasonCatalogue`.
 */
export const taskToolRefusals = {
  condition: { code: 'CONDITION_TOOL_NOT_ALLOWED', field: 'trigger.tool' },
  executor: { code: 'EXECUTOR_NOT_ALLOWED', field: 'executor' },
} as const satisfies Record<string, { code: keyof typeof triggerErrorCatalogue; field: string }>;

/**
 * The orchestrator's tool gate codes a task's tool is refused with (its refusal's `details.reason`):
 * for which callers, and what the code means there (said once, at the first caller it refuses).
 */
export const gateReasonCatalogue = {
  NOT_AN_EXECUTOR: { callers: ['executor'], note: 'its runner does not declare it an executor' },
  APPROVAL_REQUIRED: { callers: ['condition', 'executor'], note: "every call needs the user's approval" },
  AGENT_TOOL: { callers: ['condition', 'executor'], note: 'it talks with the user' },
  TOOL_NOT_ALLOWED: { callers: ['condition', 'executor'], note: "outside the task's profile" },
  TOOL_NOT_FOUND: { callers: ['condition', 'executor'] },
  PROFILE_NOT_FOUND: { callers: ['condition', 'executor'] },
} as const satisfies Record<string, { callers: ReadonlyArray<keyof typeof taskToolRefusals>; note?: string }>;

/** Codes by name, the shared ones included: throw sites write `ErrorCodes.TASK_NOT_FOUND`. */
export const ErrorCodes = {
  ...SharedErrorCodes,
  ...codesOf(triggerErrorCatalogue),
  ...codesOf(fireErrorCatalogue),
};
