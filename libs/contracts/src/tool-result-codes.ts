import type { ToolResultStatus } from './tool-result-status.js';

// Descriptions shared by several codes (one row of the table each).
const platformStepFailed = 'A platform step around the call failed';
const agentToolWaitedTooLong = 'An agent-tool waited for the user longer than allowed; nothing was done';
const outsideAConversation =
  "Calls from outside a conversation (a trigger task's condition poll or custom executor, in its fire's `error`): the tool needs the user's approval, talks with the user, or is not a declared executor; nothing was run";
const noApproval = 'The tool needs approval and none could be asked for, or a policy refused it';
const askedTheUser = 'An agent-tool stopped the turn to ask the user (its answer is recorded in a later turn)';
const notRun = 'Not run: the same call was repeated, a policy skipped it, or the loop stopped first';

/**
 * Every `errorCode` a tool call that did not succeed can end with (in a run's `toolCalls`, in
 * `tool_result` events, in stored `tool` messages), whoever gave it: the runner (the tool protocol's
 * codes, `toolErrorCatalogue`, but for `DEADLINE_EXCEEDED`, which reaches the result as `TIMEOUT`),
 * the tool gate, the loop, the agent pool, a delegation or the api. With the status it comes with
 * and what happened. docs/api.md's "Tool call error codes" table is generated from this list:
 * consecutive codes with the same status and description share a row.
 */
export const toolResultCodeCatalogue = {
  INVALID_ARGUMENTS: {
    status: 'invalid',
    happened:
      "The model's arguments failed the tool's input schema (the runner said so, with the issues), or were not JSON",
  },
  UNKNOWN_TOOL: {
    status: 'invalid',
    happened: 'The model called a tool that does not exist (no runner serves or served it)',
  },
  INVALID_REQUEST: {
    status: 'invalid',
    happened: 'The runner refused the request as breaking the tool protocol (a platform or version bug)',
  },
  HANDLER_FAILED: { status: 'failed', happened: 'The tool ran and failed', codeNote: "or the tool's own code" },
  RUNNER_UNAVAILABLE: { status: 'failed', happened: 'No runner serves the tool right now' },
  RUNNER_BUSY: { status: 'failed', happened: 'The runner was at its concurrency limit through every retry' },
  TRANSPORT_FAILED: {
    status: 'failed',
    happened: 'The runner could not be reached, or answered outside the tool protocol',
  },
  TOOL_CIRCUIT_OPEN: {
    status: 'failed',
    happened: 'The tool kept failing; calls are refused until its cool-down passes',
  },
  HOOK_FAILED: { status: 'failed', happened: platformStepFailed },
  TOOL_PORT_FAILED: { status: 'failed', happened: platformStepFailed },
  AGENT_POOL_FAILED: { status: 'failed', happened: platformStepFailed },
  AGENT_FAILED: { status: 'failed', happened: platformStepFailed },
  TIMEOUT: {
    status: 'timeout',
    happened:
      'The call did not finish within its timeout (whether the platform, the transport or the runner noticed first)',
  },
  APPROVAL_TIMEOUT: { status: 'timeout', happened: agentToolWaitedTooLong },
  INPUT_TIMEOUT: { status: 'timeout', happened: agentToolWaitedTooLong },
  PAUSED_TIMEOUT: { status: 'timeout', happened: agentToolWaitedTooLong },
  AGENT_EXPIRED: { status: 'timeout', happened: agentToolWaitedTooLong },
  TOOL_NOT_ALLOWED: {
    status: 'denied',
    happened:
      'The tool exists, but the agent profile may not use it, or the run is a plan subtask held to other tools (its failure is `tool` / `not_allowed`)',
  },
  APPROVAL_REQUIRED: { status: 'denied', happened: outsideAConversation },
  AGENT_TOOL: { status: 'denied', happened: outsideAConversation },
  NOT_AN_EXECUTOR: { status: 'denied', happened: outsideAConversation },
  APPROVAL_UNAVAILABLE: { status: 'denied', happened: noApproval },
  DENIED: { status: 'denied', happened: noApproval },
  USER_CANCELLED: { status: 'cancelled', happened: 'The user cancelled the action at its approval' },
  CANCELLED: { status: 'cancelled', happened: 'The run was cancelled before the call finished' },
  AWAITING_APPROVAL: { status: 'skipped', happened: askedTheUser },
  AWAITING_INPUT: { status: 'skipped', happened: askedTheUser },
  REPEATED_CALL: { status: 'skipped', happened: notRun },
  SKIPPED_BY_HOOK: { status: 'skipped', happened: notRun },
  STOP_CONDITION: { status: 'skipped', happened: notRun },
  DEADLINE: { status: 'skipped', happened: notRun },
  SCHEMA_VERSION_CHANGED: {
    status: 'failed',
    happened: "An agent-tool's fields changed while it waited; the wait was discarded unrun",
  },
  DELEGATION_LOOP: {
    status: 'denied',
    happened: 'A delegation to a role already in the delegation chain ([teams](plans-and-teams.md))',
  },
  DELEGATION_DEPTH_EXCEEDED: { status: 'denied', happened: 'A delegation past `MAX_DELEGATION_DEPTH`' },
  ROLE_UNAVAILABLE: { status: 'failed', happened: 'A delegation to a role (profile) the caller may not use' },
  CHILD_RUN_FAILED: { status: 'failed', happened: 'The child run of a delegation failed; the content says why' },
  COMMITTEE_FAILED: {
    status: 'failed',
    happened: 'No member of a committee answered (or its arbiter could not decide)',
  },
  INTERRUPTED: {
    status: 'failed',
    happened:
      "A [tried call](#trying-a-tool) whose orchestrator stopped before the tool answered (reported once the call is 30 s past its tool's timeout); the tool may or may not have run",
  },
} as const satisfies Record<
  string,
  { status: Exclude<ToolResultStatus, 'success'>; happened: string; codeNote?: string }
>;
