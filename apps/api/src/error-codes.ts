import { codesOf } from '@platform/service-kit';

/**
 * Every code the HTTP API answers (`error.code` of the error envelope), with its status: raised by
 * the api itself, or passed through from a service behind it (the orchestrator's RUN_NOT_FOUND,
 * the credential service's CREDENTIAL_NOT_FOUND, …). The order is the docs' order: docs/api.md's
 * "Errors" table is generated from this list (`npx nx run api:error-docs`), and a test fails when
 * the two differ.
 */
export interface ApiErrorSpec {
  /** The HTTP status the code is answered with; `event` for a code sent only as an SSE `error` event. */
  readonly status: number | 'event';
  /** What the docs' table says after the code, in brackets. */
  readonly doc?: string;
  /** Left out of the docs' table (an answer only tests can see). */
  readonly undocumented?: true;
}

export const apiErrorCatalogue = {
  INVALID_JSON: { status: 400 },
  INVALID_UTF8: { status: 400 },
  INVALID_URL: { status: 400, doc: 'percent-encoding in the path or query that is not UTF-8' },
  BAD_REQUEST: { status: 400, doc: 'not valid HTTP/1.1' },
  INVALID_CONTENT_LENGTH: { status: 400 },
  INVALID_BODY: { status: 400 },
  INVALID_CREDENTIAL_NAME: { status: 400 },
  INVALID_SECRET: { status: 400 },
  EMPTY_CONTENT: { status: 400 },
  INVALID_CONTENT: {
    status: 400,
    doc: 'a NUL character or an unpaired surrogate, anywhere in the path, query or body',
  },
  INVALID_CONVERSATION_ID: { status: 400 },
  INVALID_RUN_ID: { status: 400 },
  INVALID_RESPONSE_ID: { status: 400, doc: 'an OpenAI Responses API response id (a run id)' },
  UNSUPPORTED_INPUT_ITEM: {
    status: 400,
    doc: 'a Responses `input` item other than a user, system or developer message of text; `details.field`',
  },
  CLIENT_TOOLS_NOT_SUPPORTED: {
    status: 400,
    doc: "`tools` in a Responses request: the agent's tools run on the platform",
  },
  MCP_SESSION_REQUIRED: {
    status: 400,
    doc: 'an MCP request without `Mcp-Session-Id` that is not `initialize` ([MCP](protocols.md#mcp))',
  },
  MCP_SESSION_INITIALIZED: {
    status: 400,
    doc: 'an MCP `initialize` sent with `Mcp-Session-Id` or in a batch: it opens a new session, alone',
  },
  MCP_PROTOCOL_VERSION_UNSUPPORTED: {
    status: 400,
    doc: 'an `Mcp-Protocol-Version` the MCP server does not speak; `details.supported`',
  },
  INVALID_QUERY: { status: 400 },
  INVALID_TIME_ZONE: { status: 400 },
  INVALID_OUTPUT_SCHEMA: {
    status: 400,
    doc: 'not a JSON Schema (draft 2020-12) that compiles; `details.field` names it',
  },
  INVALID_DAY: { status: 400 },
  INVALID_RANGE: { status: 400 },
  CHANGES_REQUIRED: { status: 400 },
  NO_USER_MESSAGE: { status: 400 },
  CLIENT_TOOLS_UNSUPPORTED: {
    status: 400,
    doc: "an AG-UI run's client-side `tools` (the agent's own tools run on the platform)",
  },
  INVALID_TASK_SPEC: { status: 400 },
  INVALID_WEBHOOK_URL: { status: 400, doc: 'a run webhook URL that is not https, or longer than 2048 characters' },
  EGRESS_REFUSED: {
    status: 400,
    doc: 'a webhook, model connection or remote agent URL that reaches inside, `details.reason` says why',
  },
  INVALID_MODEL_CONNECTION: { status: 400, doc: '`details.issues` names the field' },
  INVALID_REMOTE_AGENT: { status: 400, doc: '`details.field` names the field' },
  INVALID_AGENT_SPEC: { status: 400, doc: '`details.issues` lists `[{ field, message }]`' },
  INVALID_IF_MATCH: { status: 400, doc: 'not an ETag this api gives (`"<revision>"`)' },
  OVERRIDE_NOT_ALLOWED: { status: 400, doc: "a run's `overrides` beyond what its agent allows" },
  INVALID_FROM_STEP: {
    status: 400,
    doc: "a replay's `fromStep` past the run's steps or between a tool call and its result (`details.field`)",
  },
  CONDITION_TOOL_NOT_ALLOWED: { status: 400 },
  EXECUTOR_NOT_ALLOWED: { status: 400, doc: "a task's tool or executor refused by the tool gate" },
  INVALID_PAGE_TOKEN: { status: 400 },
  INVALID_CONVERSATION_TITLE: { status: 400, doc: 'longer than 200 characters' },
  INVALID_CONVERSATION_LABELS: {
    status: 400,
    doc: 'more than 20, a repeat, or one not 1-64 letters, digits or `-_.:/`',
  },
  INVALID_CONVERSATION_METADATA: {
    status: 400,
    doc: 'not an object, over 8 KiB of JSON, or a number JSON readers cannot keep exactly',
  },
  INVALID_CONVERSATION_FILTER: { status: 400 },
  INVALID_STOP_REASON: { status: 400 },
  INVALID_TOOL_NAME: { status: 400 },
  INVALID_PARENT_RUN_ID: { status: 400 },
  INVALID_TIME_RANGE: { status: 400 },
  INVALID_IDEMPOTENCY_KEY: { status: 400 },
  INVALID_SUBJECT: { status: 400 },
  INVALID_EVENT: { status: 400 },
  INVALID_TENANT: { status: 400, doc: '`Platform-Tenant`' },
  INVALID_ARGUMENTS: { status: 400, doc: 'trying a tool' },
  INVALID_PATH: {
    status: 400,
    doc: 'a malformed path parameter without a code of its own, or one longer than 4096 characters as sent',
  },
  INVALID_ACTING_USER: { status: 400, doc: '`Platform-User`: not a valid subject' },
  INVALID_KEY_EXPIRY: { status: 400, doc: "a key's `expiresAt` in the past" },
  DELEGATION_CONVERSATION: {
    status: 400,
    doc: "a message to a child run's conversation: answer in the team's conversation",
  },
  MISSING_TOKEN: { status: 401 },
  INVALID_TOKEN: { status: 401 },
  TOKEN_EXPIRED: { status: 401 },
  TOKEN_WITHOUT_EXPIRY: { status: 401 },
  TOKEN_LIFETIME_TOO_LONG: { status: 401 },
  TOKEN_ISSUED_IN_FUTURE: { status: 401 },
  INVALID_ISSUER: { status: 401 },
  INVALID_AUDIENCE: { status: 401 },
  UNKNOWN_SIGNING_KEY: { status: 401, doc: '[authentication](operations.md#authentication)' },
  INVALID_API_KEY: { status: 401, doc: '[API keys](access.md#api-keys)' },
  API_KEY_REVOKED: { status: 401 },
  API_KEY_EXPIRED: { status: 401 },
  FORBIDDEN: {
    status: 403,
    doc: 'an operator route or the `Platform-Tenant` header without the operator role; `Platform-User` with a token instead of a key',
  },
  FORBIDDEN_ROLE: {
    status: 403,
    doc: "the caller's tenant role is below the operation's (`details.requiredRole`, [roles](access.md#roles)); deciding another user's approval",
  },
  TOOL_NOT_ALLOWED: { status: 403, doc: 'trying a tool the profile does not give its agents' },
  NOT_PERMITTED_BY_TIER: {
    status: 403,
    doc: "what the tenant's tier does not allow (a model, tool pattern or model connection), `details.what` names it",
  },
  BUILT_IN_AGENT: { status: 403, doc: 'writing a built-in agent' },
  CONVERSATION_SHARE_FORBIDDEN: { status: 403, doc: "sharing someone else's conversation, unless an admin" },
  CONVERSATION_DELETE_FORBIDDEN: {
    status: 403,
    doc: "deleting another user's shared conversation, unless its owner, a developer or an admin",
  },
  NOT_FOUND: { status: 404, doc: 'route' },
  RUN_NOT_FOUND: { status: 404 },
  PROFILE_NOT_FOUND: { status: 404 },
  AGENT_NOT_FOUND: { status: 404 },
  AGENT_VERSION_NOT_FOUND: { status: 404 },
  PIN_NOT_FOUND: { status: 404, doc: 'a conversation without a pin' },
  CONVERSATION_NOT_FOUND: {
    status: 404,
    doc: "none of this id in the tenant, or another user's that is not shared (docs/conversations.md)",
  },
  MESSAGE_NOT_FOUND: { status: 404, doc: 'a fork at a seq the conversation has not reached; `details.latestSeq`' },
  APPROVAL_NOT_FOUND: { status: 404 },
  MCP_SESSION_NOT_FOUND: {
    status: 404,
    doc: "an `Mcp-Session-Id` this replica does not hold for the caller (ended, expired, another replica's or another caller's): initialize again",
  },
  CREDENTIAL_NOT_FOUND: { status: 404 },
  MODEL_CONNECTION_NOT_FOUND: { status: 404 },
  REMOTE_AGENT_NOT_FOUND: { status: 404 },
  TASK_NOT_FOUND: { status: 404 },
  FACT_NOT_FOUND: { status: 404 },
  DELETION_NOT_FOUND: { status: 404, doc: 'a conversation deletion' },
  TOOL_NOT_FOUND: { status: 404 },
  TOOL_CALL_NOT_FOUND: { status: 404 },
  API_KEY_NOT_FOUND: { status: 404 },
  METHOD_NOT_ALLOWED: { status: 405, doc: '`GET /v1/mcp`: the MCP server offers no stream outside requests' },
  NOT_ACCEPTABLE: {
    status: 406,
    doc: 'an MCP `POST` whose `Accept` does not name both `application/json` and `text/event-stream`',
  },
  REQUEST_TIMEOUT: { status: 408, doc: 'the request did not arrive in time' },
  RUN_FINISHED: { status: 409 },
  RUN_NOT_FINISHED: { status: 409, doc: 'a replay of a run still queued or running' },
  REPLAY_UNSUPPORTED: {
    status: 409,
    doc: "a replay of a delegation's child run, a plan-and-execute run, or a run not in its conversation's history",
  },
  RUN_IN_PROGRESS: {
    status: 409,
    doc: 'a message sent with `multitask: "reject"` while a run is in flight; `details.runId` names that run',
  },
  CONVERSATION_DELETING: { status: 409, doc: 'a message to a conversation being deleted' },
  FORK_INSIDE_TOOL_CALL: { status: 409, doc: 'a fork between a tool call and its results' },
  FORK_TOO_DEEP: { status: 409, doc: 'a fork 10 forks from its root conversation' },
  CHANGES_NOT_ALLOWED: { status: 409 },
  DECISION_NOT_OFFERED: { status: 409 },
  APPROVAL_PAUSED: { status: 409 },
  VERSION_CONFLICT: { status: 409 },
  MODEL_CONNECTION_EXISTS: { status: 409 },
  REMOTE_AGENT_EXISTS: { status: 409 },
  REMOTE_AGENT_VERSION_CONFLICT: { status: 409, doc: '`details.currentVersion`' },
  TASK_STATUS_CONFLICT: { status: 409 },
  AGENT_NAME_TAKEN: { status: 409 },
  NOTHING_TO_ROLL_BACK: { status: 409, doc: 'an agent that had no active version before the current one' },
  APPROVAL_REQUIRED: { status: 409 },
  AGENT_TOOL: { status: 409, doc: 'trying a tool' },
  AGENT_DELETED: { status: 410, doc: 'a message to a deleted agent' },
  STALE_REVISION: { status: 412, doc: '`If-Match` is not the current ETag: read the agent again' },
  CONTENT_TOO_LONG: { status: 413 },
  PAYLOAD_TOO_LARGE: { status: 413 },
  SECRET_TOO_LARGE: { status: 413 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  REMOTE_AGENT_CARD_UNREADABLE: {
    status: 422,
    doc: 'the agent card could not be fetched, or is not an A2A card with a JSON-RPC or HTTP+JSON interface',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    doc: "an `Idempotency-Key` sent within its 24 h with a different body or conversation; `details.runId` is the first send's run",
  },
  PRECONDITION_REQUIRED: { status: 428, doc: 'a write that needs `If-Match`' },
  RATE_LIMITED: { status: 429 },
  TOKEN_BUDGET_EXCEEDED: { status: 429, doc: 'with `retry-after`' },
  QUOTA_EXCEEDED: {
    status: 429,
    doc: '`details.quota` names it, see [Quotas](#quotas); `events_per_minute` with `retry-after`',
  },
  HEADERS_TOO_LARGE: { status: 431, doc: 'the request line and headers are larger than the server accepts, 16 KiB' },
  OVERLOADED: { status: 503, doc: 'with `retry-after`' },
  AUTH_UNAVAILABLE: { status: 503 },
  UNAVAILABLE: { status: 503, doc: 'a dependency is down' },
  CREDENTIALS_UNAVAILABLE: { status: 503 },
  MODEL_UNAVAILABLE: { status: 503, doc: "memory's model, for `/v1/memory/query`" },
  RUNNER_UNAVAILABLE: { status: 503, doc: 'trying a tool no runner serves right now' },
  DEAD_LETTERS_UNAVAILABLE: { status: 503, doc: 'the dead-letter stream, for operators' },
  INTERNAL: { status: 500, doc: "details, and any service's own code, only in the logs" },
  EVENTS_UNAVAILABLE: { status: 'event', doc: "a run's event stream broke off" },
  NOTIFICATIONS_UNAVAILABLE: { status: 'event', doc: 'the notification stream broke off' },
  REPLY_NOT_AS_DOCUMENTED: {
    status: 500,
    doc: "a handler's reply differs from its documented schema (only with `checkReplies`, in tests)",
    undocumented: true,
  },
} as const satisfies Record<string, ApiErrorSpec>;

export type ApiErrorCode = keyof typeof apiErrorCatalogue;

/** The api's codes by name: throw sites write `ApiErrorCodes.INVALID_BODY`. */
export const ApiErrorCodes = codesOf(apiErrorCatalogue);
