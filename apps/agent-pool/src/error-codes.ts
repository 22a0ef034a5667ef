import { codesOf, SharedErrorCodes, type ErrorCodeSpec } from '@platform/service-kit';

/**
 * Every error code this service raises besides service-kit's shared ones (`SharedErrorCodes`),
 * with the kind it is raised with and what it means.
 */
export const agentPoolErrorCatalogue = {
  INPUT_TOO_LARGE: { kind: 'invalid_argument', description: '… is larger than … bytes.' },
  INVALID_SOURCE: { kind: 'invalid_argument', description: 'Source.kind must be "user" or "trigger", not "…".' },
  INVALID_USER_DECISION: {
    kind: 'invalid_argument',
    description: 'A call is either approval_gate or user_decision, not both.',
  },
  INVALID_CALL_ID: { kind: 'invalid_argument', description: '`call_id` is not valid.' },
  INVALID_AGENT_NAME: { kind: 'invalid_argument', description: '`agent_name` is not valid.' },
  INVALID_ARGUMENTS_JSON: { kind: 'invalid_argument', description: 'TODO' },
  INVALID_ENTRY_ID: { kind: 'invalid_argument', description: '`entry_id` is not valid.' },
  INVALID_FIELDS_JSON: { kind: 'invalid_argument', description: 'TODO' },
  INVALID_APPROVAL_ID: { kind: 'invalid_argument', description: '`approval_id` is not valid.' },
  INVALID_DECISION: { kind: 'invalid_argument', description: '`decision` is not valid.' },
  INVALID_CHANGES_JSON: { kind: 'invalid_argument', description: 'TODO' },
  DECISION_REQUIRED: {
    kind: 'invalid_argument',
    description: "Give a decision, or the user's reply for the agent to read.",
  },
  CHANGES_NEED_EDIT: { kind: 'invalid_argument', description: 'Changes_json is only accepted with decision "edit".' },
  NOT_AN_AGENT: {
    kind: 'failed_precondition',
    description: "'…' is a plain tool, not an agent-tool; call it as a tool.",
  },
  NOT_A_PLAIN_TOOL: {
    kind: 'failed_precondition',
    description: "'…' is an agent-tool, which asks for approval itself; start it without approval_gate.",
  },
  DECISION_NOT_OFFERED: { kind: 'invalid_argument', description: "Decision '…' is not offered; the options are …." },
  MODIFICATION_NOT_ALLOWED: { kind: 'invalid_argument', description: 'This approval request does not accept changes.' },
  AGENT_UNAVAILABLE: {
    kind: 'unavailable',
    description: "No runner serves '…' right now; the entry is unchanged, try again later.",
  },
  AGENT_STEP_TIMEOUT: {
    kind: 'deadline_exceeded',
    description:
      "…; the agent entry is unchanged, and a retry sends the same step call id so the runner can answer it without running the step twice (agent '…').",
  },
  TOO_MANY_AGENTS: {
    kind: 'resource_exhausted',
    description:
      'This tenant already has … agents waiting for the user (the limit is …); answer, cancel or let some expire before starting another.',
  },
  AGENT_NOT_FOUND: { kind: 'not_found', description: 'No such agent entry.' },
  APPROVAL_NOT_FOUND: { kind: 'not_found', description: 'No such approval request.' },
  AGENT_PAUSED: { kind: 'failed_precondition', description: 'The agent entry … is paused; resume it first.' },
  AGENT_AWAITING_APPROVAL: {
    kind: 'failed_precondition',
    description: 'The agent entry … waits for approval; answer approval … with ResolveApproval.',
  },
  AGENT_AWAITING_INPUT: {
    kind: 'failed_precondition',
    description: 'The agent entry … waits for input; answer it with ContinueAgent.',
  },
  AGENT_NOT_WAITING: { kind: 'failed_precondition', description: 'The agent entry … is … and takes no more ….' },
  AGENT_NOT_LIVE: { kind: 'failed_precondition', description: 'The agent entry … is already ….' },
  STEP_IN_PROGRESS: {
    kind: 'failed_precondition',
    description: 'Another call is changing this agent entry right now; retry when it has finished.',
  },
} as const satisfies Record<string, ErrorCodeSpec>;

/** Codes by name, the shared ones included: throw sites write `ErrorCodes.TASK_NOT_FOUND`. */
export const ErrorCodes = { ...SharedErrorCodes, ...codesOf(agentPoolErrorCatalogue) };
