import { codesOf, SharedErrorCodes, type ErrorCodeSpec } from '@platform/service-kit';

/**
 * Every error code this service raises besides service-kit's shared ones (`SharedErrorCodes`),
 * with the kind it is raised with and what it means.
 */
export const agentPoolErrorCatalogue = {
  INVALID_CALL_ID: { kind: 'invalid_argument', description: '`call_id` is not a valid tool call id.' },
  INVALID_AGENT_NAME: { kind: 'invalid_argument', description: '`agent_name` is not a valid tool name.' },
  INVALID_ENTRY_ID: { kind: 'invalid_argument', description: '`entry_id` is not a valid entry id.' },
  INVALID_APPROVAL_ID: { kind: 'invalid_argument', description: '`approval_id` is not a valid approval id.' },
  INVALID_ARGUMENTS_JSON: { kind: 'invalid_argument', description: '`arguments_json` is not a JSON object.' },
  INVALID_FIELDS_JSON: { kind: 'invalid_argument', description: '`fields_json` is not a JSON object.' },
  INVALID_CHANGES_JSON: { kind: 'invalid_argument', description: '`changes_json` is not a JSON object.' },
  INVALID_SOURCE: {
    kind: 'invalid_argument',
    description: '`source` is neither a user nor a trigger, or its `task_id` is missing, extra or not valid.',
  },
  INVALID_DECISION: { kind: 'invalid_argument', description: '`decision` is not an approval decision.' },
  INVALID_USER_DECISION: {
    kind: 'invalid_argument',
    description:
      'A `user_decision` that is not well formed (with `approval_gate`, without a summary, with no expiry, or details that are not an object).',
  },
  DECISION_REQUIRED: {
    kind: 'invalid_argument',
    description: "An answer with neither a decision nor the user's reply for the agent to read.",
  },
  CHANGES_NEED_EDIT: { kind: 'invalid_argument', description: '`changes_json` with a decision other than "edit".' },
  DECISION_NOT_OFFERED: { kind: 'invalid_argument', description: 'A decision the approval request does not offer.' },
  MODIFICATION_NOT_ALLOWED: {
    kind: 'invalid_argument',
    description: 'Changes to an approval request that takes none.',
  },
  INPUT_TOO_LARGE: { kind: 'invalid_argument', description: 'A JSON field larger than AGENT_MAX_INPUT_BYTES.' },
  AGENT_NOT_FOUND: { kind: 'not_found', description: 'No agent entry of this id for this tenant.' },
  APPROVAL_NOT_FOUND: { kind: 'not_found', description: 'No approval request of this id for this tenant.' },
  STEP_IN_PROGRESS: {
    kind: 'failed_precondition',
    description: 'Another call is running a step of (or changing) this entry; retry after it.',
  },
  AGENT_PAUSED: { kind: 'failed_precondition', description: 'The entry is paused; resume it first.' },
  AGENT_AWAITING_APPROVAL: {
    kind: 'failed_precondition',
    description: 'The entry waits for approval; answer its approval request instead.',
  },
  AGENT_AWAITING_INPUT: {
    kind: 'failed_precondition',
    description: 'The entry waits for input; continue it instead.',
  },
  AGENT_NOT_WAITING: {
    kind: 'failed_precondition',
    description: 'The entry no longer waits for the input or decision sent.',
  },
  AGENT_NOT_LIVE: { kind: 'failed_precondition', description: 'The entry already ended.' },
  NOT_AN_AGENT: {
    kind: 'failed_precondition',
    description: '`StartAgent` of a name the catalog lists as a plain tool (without `approval_gate`).',
  },
  NOT_A_PLAIN_TOOL: {
    kind: 'failed_precondition',
    description: '`StartAgent` with `approval_gate` of an agent-tool, which asks for approval itself.',
  },
  TOO_MANY_AGENTS: {
    kind: 'resource_exhausted',
    description: 'The tenant has MAX_LIVE_AGENTS_PER_TENANT agents waiting for the user already.',
  },
  AGENT_UNAVAILABLE: {
    kind: 'unavailable',
    description: 'No runner serves the agent, all replicas are busy, or NATS is unreachable; the entry is unchanged.',
  },
  AGENT_STEP_TIMEOUT: {
    kind: 'deadline_exceeded',
    description:
      'The runner did not answer the step in time; the step may have run, and a retry sends the same call id.',
  },
} as const satisfies Record<string, ErrorCodeSpec>;

/** Codes by name, the shared ones included: throw sites write `ErrorCodes.TASK_NOT_FOUND`. */
export const ErrorCodes = { ...SharedErrorCodes, ...codesOf(agentPoolErrorCatalogue) };
