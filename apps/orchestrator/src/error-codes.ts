import { codesOf, SharedErrorCodes, type ErrorCodeSpec } from '@platform/service-kit';

/**
 * Every error code this service raises besides service-kit's shared ones (`SharedErrorCodes`),
 * with the kind it is raised with and what it means. The tool gate, the listings and the tool-call
 * services use it; the turn's code (turn-executor.ts, pipeline/, agents/, journal/, ordering/) still
 * spells its codes at the throw sites and moves onto it with the orchestrator's new layout.
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
    description: 'A run listing filtered by a source that runs do not have.',
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
} as const satisfies Record<string, ErrorCodeSpec>;

/** Codes by name, the shared ones included: throw sites write `ErrorCodes.TASK_NOT_FOUND`. */
export const ErrorCodes = { ...SharedErrorCodes, ...codesOf(orchestratorErrorCatalogue) };
