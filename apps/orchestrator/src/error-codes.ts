import { codesOf, SharedErrorCodes, type ErrorCodeSpec } from '@platform/service-kit';

/**
 * Every error code this service raises besides service-kit's shared ones (`SharedErrorCodes`),
 * with the kind it is raised with and what it means. Every throw site of the service writes
 * `ErrorCodes.X`; the codes a tool result carries (`errorCode` of a tool's outcome) are the model's to
 * read and are not raised as errors.
 */
const orchestratorErrorCatalogue = {
  PROFILE_NOT_FOUND: {
    kind: 'not_found',
    description: 'No agent profile of this name that the caller may use; the message lists those it may.',
  },
  INVALID_STATUS: {
    kind: 'invalid_argument',
    description: 'A run listing filtered by a status that runs do not have.',
  },
  INVALID_PAGE_SIZE: { kind: 'invalid_argument', description: "A run listing's page size outside its allowed range." },
  INVALID_STOP_REASON: {
    kind: 'invalid_argument',
    description: 'A run listing filtered by a stop reason that does not exist.',
  },
  INVALID_TOOL_NAME: {
    kind: 'invalid_argument',
    description: 'A run listing filtered by a tool name that is not valid.',
  },
  INVALID_SOURCE: {
    kind: 'invalid_argument',
    description: "A message's source (or a run listing's source filter) that is not a user or a trigger of valid form.",
  },
  INVALID_TIME_RANGE: {
    kind: 'invalid_argument',
    description: 'A run listing whose `created_after` is not before `created_before`.',
  },
  INVALID_PARENT_RUN_ID: {
    kind: 'invalid_argument',
    description: 'A run listing filtered by a parent run id that is not valid.',
  },
  INVALID_ARGUMENTS: {
    kind: 'invalid_argument',
    description: "A tool call's arguments are not a JSON object, or fail the tool's input schema.",
  },
  INVALID_ROLE: {
    kind: 'invalid_argument',
    description: "A message's sender role that is not a tenant role (viewer, member, developer, admin).",
  },
  INVALID_PROTOCOL: {
    kind: 'invalid_argument',
    description: "A message's or a run listing's protocol that is not one of the platform's (docs/protocols.md).",
  },
  INVALID_PROTOCOL_REQUEST: {
    kind: 'invalid_argument',
    description: "A message's protocol request (protocol_request_json) that is not a JSON object, or over 64 KiB.",
  },
  INVALID_CALLER: {
    kind: 'invalid_argument',
    description: 'A task tool call names a caller other than a condition or an executor.',
  },
  INVALID_CALL_ID: {
    kind: 'invalid_argument',
    description: 'A task or tried tool call with a call id of the wrong form.',
  },
  TOOL_NOT_FOUND: { kind: 'not_found', description: 'No tool of this name in the catalog.' },
  TOOL_CALL_FAILED: {
    kind: 'internal',
    description: 'A task tool call failed in a way that names no code of its own.',
  },
  INVALID_BATCH: {
    kind: 'invalid_argument',
    description: 'A batch of task tool calls that are not executor calls of one tool.',
  },
  GATE_VERDICT: {
    kind: 'internal',
    description: 'The tool gate held a call for the user where the caller has nobody to ask (a gate defect).',
  },
  TOOL_CALL_NOT_FOUND: { kind: 'not_found', description: 'No tool call of this id for this tenant.' },
  RUN_NOT_FOUND: { kind: 'not_found', description: 'No run of this id (in this conversation, when one is named).' },
  INVALID_PUSH_CONFIG: {
    kind: 'invalid_argument',
    description: 'An A2A push notification config without a URL, or with a field too long or holding a line break.',
  },
  A2A_PUSH_CONFIG_NOT_FOUND: {
    kind: 'not_found',
    description: 'No push notification config of this id for this A2A task of this tenant.',
  },
  INVALID_IDEMPOTENCY_KEY: {
    kind: 'invalid_argument',
    description:
      'An Idempotency-Key that is not 1 to 255 characters of A-Z a-z 0-9 - _ . : ~ + / =, or one sent without a request fingerprint (64 hex digits).',
  },
  IDEMPOTENCY_KEY_REUSED: {
    kind: 'failed_precondition',
    description:
      "An Idempotency-Key the tenant used, within its lifetime, for a different request (another body or conversation); the first request's run is not answered with.",
  },
  RUN_NOT_FINISHED: {
    kind: 'failed_precondition',
    description: 'A replay of a run still queued or running: a run is replayed once it has finished.',
  },
  INVALID_FROM_STEP: {
    kind: 'invalid_argument',
    description:
      "A replay's `fromStep` past the run's steps, or between a tool call and its result (the message names the furthest step allowed).",
  },
  REPLAY_UNSUPPORTED: {
    kind: 'failed_precondition',
    description:
      "A replay of a run that cannot be replayed: a delegation's child run, a plan-and-execute run, or a run whose message is not in its conversation's history.",
  },
  RUN_IN_PROGRESS: {
    kind: 'failed_precondition',
    description:
      'A message sent with the `reject` policy while a run of its conversation is in flight; `details.runId` names that run.',
  },
  INVALID_MULTITASK: {
    kind: 'invalid_argument',
    description: "A message's `multitask` that is not enqueue, reject, interrupt or rollback.",
  },
  RUN_ID_TAKEN: {
    kind: 'already_exists',
    description: "A new message's run id belongs to another conversation's run; use another.",
  },
  CALLER_CANCELLED: {
    kind: 'cancelled',
    description: 'The caller hung up a message before its turn was admitted; the turn does not start.',
  },
  DELEGATION_CONVERSATION: {
    kind: 'invalid_argument',
    description: "A message sent to a child run's conversation; its team's root conversation takes the messages.",
  },
  EMPTY_CONTENT: { kind: 'invalid_argument', description: 'A message whose content is empty or only whitespace.' },
  INVALID_TIME_ZONE: { kind: 'invalid_argument', description: "A message's time zone that is not an IANA time zone." },
  INVALID_OUTPUT_SCHEMA: {
    kind: 'invalid_argument',
    description:
      "A message's output schema that is not a JSON Schema (draft 2020-12) that compiles, or longer than 64 KiB; `details.field` names it.",
  },
  INVALID_WEBHOOK_URL: {
    kind: 'invalid_argument',
    description: 'A run webhook URL that is not an https URL of at most 2048 characters; `details.field` names it.',
  },
  EGRESS_REFUSED: {
    kind: 'invalid_argument',
    description:
      'A run webhook or remote agent URL that reaches inside (loopback, private, metadata, ...); `details.reason` says why.',
  },
  INVALID_DECISION: {
    kind: 'invalid_argument',
    description: 'An approval decision that is not "approve", "edit" or "cancel".',
  },
  INVALID_CHANGES: { kind: 'invalid_argument', description: 'An "edit" decision whose changes are not a JSON object.' },
  CHANGES_REQUIRED: { kind: 'invalid_argument', description: 'An "edit" decision without changes.' },
  OVERLOADED: {
    kind: 'unavailable',
    description: 'This replica runs MAX_CONCURRENT_TURNS turns already; try again shortly (`retryAfterSeconds`).',
  },
  SHUTTING_DOWN: {
    kind: 'unavailable',
    description: 'This replica is shutting down: a new message is refused, a waiting one goes on elsewhere.',
  },
  RATE_LIMITED: {
    kind: 'resource_exhausted',
    description: "The tenant started its tier's turns per minute; `details` has the limit and window.",
  },
  TOKEN_BUDGET_EXCEEDED: {
    kind: 'resource_exhausted',
    description: "The tenant used its tier's model tokens for the UTC day; `details` has the budget and use.",
  },
  INVALID_DAY: { kind: 'invalid_argument', description: 'A usage request day that is not YYYY-MM-DD.' },
  INVALID_RANGE: {
    kind: 'invalid_argument',
    description: 'A usage request whose `from` is after its `to`, or that covers more days than allowed.',
  },
  INVALID_AGENT_SPEC: {
    kind: 'invalid_argument',
    description: "An agent spec that is not valid JSON or breaks the spec's rules; `details.issues` names each field.",
  },
  INVALID_AGENT: {
    kind: 'invalid_argument',
    description: 'An agent reference (id or name) or version of the wrong form.',
  },
  NOT_PERMITTED_BY_TIER: {
    kind: 'permission_denied',
    description:
      "The tenant's tier does not permit a model, tool pattern or model connection an agent names (or model connections at all: its `modelConnections` is 0); the message names it.",
  },
  BUILT_IN_AGENT: {
    kind: 'permission_denied',
    description: "A write to a built-in agent (the operator's profiles): those are read-only.",
  },
  AGENT_NOT_FOUND: { kind: 'not_found', description: 'No agent of this id or name that the caller may use.' },
  AGENT_VERSION_NOT_FOUND: { kind: 'not_found', description: 'The agent has no version of this number.' },
  AGENT_NAME_TAKEN: {
    kind: 'already_exists',
    description: 'Another live agent of the tenant, or a built-in agent, has the name.',
  },
  STALE_REVISION: {
    kind: 'failed_precondition',
    description: "The agent's revision is not the one `if_match` names: someone wrote it since; read it again.",
  },
  PRECONDITION_REQUIRED: { kind: 'failed_precondition', description: 'An agent update without `if_match`.' },
  AGENT_DELETED: {
    kind: 'failed_precondition',
    description: 'The agent is deleted: it answers no new messages and takes no writes; its runs stay readable.',
  },
  NOTHING_TO_ROLL_BACK: {
    kind: 'failed_precondition',
    description: 'A rollback of an agent with no earlier publication to go back to.',
  },
  OVERRIDE_NOT_ALLOWED: {
    kind: 'invalid_argument',
    description: "A message's overrides that are not valid or that the agent does not allow; the message names which.",
  },
  CONVERSATION_NOT_PINNED: { kind: 'not_found', description: 'The conversation has no agent pin.' },
  CONVERSATION_NOT_FOUND: {
    kind: 'not_found',
    description:
      "No conversation of this id that the caller may reach: none in the tenant, or another user's that is not shared (the two look the same).",
  },
  INVALID_CONVERSATION_TITLE: {
    kind: 'invalid_argument',
    description: 'A conversation title longer than its limit (docs/conversations.md).',
  },
  INVALID_CONVERSATION_LABELS: {
    kind: 'invalid_argument',
    description: 'Conversation labels beyond their limits or of the wrong form; the message names the label.',
  },
  INVALID_CONVERSATION_METADATA: {
    kind: 'invalid_argument',
    description: 'Conversation metadata that is not a JSON object or is larger than its limit.',
  },
  INVALID_CONVERSATION_FILTER: {
    kind: 'invalid_argument',
    description:
      'A conversation listing filter of the wrong form (a metadata filter that is not key=value, a search too long).',
  },
  CONVERSATION_SHARE_FORBIDDEN: {
    kind: 'permission_denied',
    description: 'Sharing or unsharing a conversation by someone who is neither its owner nor a tenant admin.',
  },
  CONVERSATION_DELETE_FORBIDDEN: {
    kind: 'permission_denied',
    description:
      "Deleting another user's shared conversation by someone who is neither its owner nor a developer or admin.",
  },
  CONVERSATION_DELETING: {
    kind: 'failed_precondition',
    description:
      'A message to a conversation that is being deleted; once the deletion completes the id may be used again.',
  },
  DELETION_NOT_FOUND: { kind: 'not_found', description: 'No conversation deletion of this id for this tenant.' },
  INVALID_REMOTE_AGENT: {
    kind: 'invalid_argument',
    description:
      'A remote agent of the wrong form (its name, URL, description or credential); `details.field` names it.',
  },
  REMOTE_AGENT_NOT_FOUND: { kind: 'not_found', description: 'No remote agent of this name for this tenant.' },
  REMOTE_AGENT_EXISTS: { kind: 'already_exists', description: 'The tenant has a remote agent of this name already.' },
  REMOTE_AGENT_CARD_UNREADABLE: {
    kind: 'failed_precondition',
    description:
      "A remote agent's card could not be fetched, or is not an A2A agent card the platform can talk to (no JSON-RPC or HTTP+JSON interface); the message says which.",
  },
  REMOTE_AGENT_VERSION_CONFLICT: {
    kind: 'failed_precondition',
    description: 'A remote agent update whose expected version is not the stored one (`details.currentVersion`).',
  },
  INVALID_SUBJECT: {
    kind: 'invalid_argument',
    description: "An end user's subject that is empty or longer than 256 characters.",
  },
} as const satisfies Record<string, ErrorCodeSpec>;

/** Codes by name, the shared ones included: throw sites write `ErrorCodes.TASK_NOT_FOUND`. */
export const ErrorCodes = { ...SharedErrorCodes, ...codesOf(orchestratorErrorCatalogue) };
