import { z } from 'zod';

/*
 * The agent-tool step protocol (version 1), layered on the tool protocol: an agent-tool is an
 * endpoint of kind `agent` on `toolSubject(name)`, called with the same headers. A runner keeps no
 * state between calls: every request carries what was collected so far, and every reply says
 * what the agent needs next. The agent pool stores that state between steps (Postgres).
 *
 * Request body: `{ "arguments": {...}, "agent": AgentStepInput }`. Without `agent` the call is a
 * `start` step with the model's arguments (so a plain tool client can start an agent).
 * Reply: a tool-protocol `success` response whose `output` is an `AgentStepOutput`; validation
 * errors of the step itself (not of the fields) are `invalid` responses as for tools.
 */

/** The parameter every agent-tool schema adds for context that fits no field. */
export const TASK_INSTRUCTION_PARAMETER = 'task_instruction';

export const ApprovalDecision = z.enum(['approve', 'edit', 'cancel']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

const Fields = z.record(z.string(), z.unknown());

export const AgentStepInput = z.discriminatedUnion('phase', [
  /** First step: `arguments` hold what the model extracted from the conversation. */
  z.object({ phase: z.literal('start') }),
  /** The user answered a prompt for input; `fields` were extracted from `message` by the caller. */
  z.object({ phase: z.literal('input'), collected: Fields, fields: Fields, message: z.string() }),
  /**
   * The user answered an approval request: either a decision (with `changes` for `edit`) or the
   * raw `reply` text, which the agent reads with its own reply reader.
   */
  z.object({
    phase: z.literal('approval'),
    collected: Fields,
    decision: ApprovalDecision.optional(),
    changes: Fields.optional(),
    reply: z.string().optional(),
  }),
]);
export type AgentStepInput = z.infer<typeof AgentStepInput>;

export const AgentCallRequest = z.object({
  arguments: Fields,
  agent: AgentStepInput.optional(),
});
export type AgentCallRequest = z.infer<typeof AgentCallRequest>;

/** What the user is asked to confirm before an irreversible action. */
export const ApprovalRequest = z.object({
  agentName: z.string(),
  /** One line, e.g. "Send email to team@example.com". */
  actionSummary: z.string(),
  details: Fields,
  options: z.array(ApprovalDecision).min(1),
  /** After this the request expires and the action is not taken. */
  timeoutMinutes: z.number().int().positive(),
  /** Whether `edit` with changes is accepted. */
  allowModification: z.boolean(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/** A field the agent still needs, and why (missing, or the reason the given value was rejected). */
export const MissingField = z.object({
  name: z.string(),
  description: z.string(),
  reason: z.string().optional(),
});
export type MissingField = z.infer<typeof MissingField>;

const StepBase = {
  /** The agent's field schema version; the pool discards entries saved under another one. */
  schemaVersion: z.string(),
  collected: Fields,
};

export const AgentStepOutput = z.discriminatedUnion('state', [
  z.object({ state: z.literal('completed'), ...StepBase, result: z.unknown() }),
  z.object({ state: z.literal('waiting_for_input'), ...StepBase, prompt: z.string(), missing: z.array(MissingField) }),
  z.object({ state: z.literal('waiting_for_approval'), ...StepBase, prompt: z.string(), approval: ApprovalRequest }),
  z.object({ state: z.literal('cancelled'), ...StepBase, message: z.string() }),
]);
export type AgentStepOutput = z.infer<typeof AgentStepOutput>;

/** What the model is told when the user cancels an agent's action. */
export const USER_CANCELLED_MESSAGE = 'User cancelled this action.';

/**
 * Tool-call ids of the exchanges the platform adds to a conversation for an agent-tool that
 * finished (or expired) after its run stopped: the original call id with this suffix. They are
 * context, not model output (a simulated model does not count them as its steps).
 */
export const RESUMED_CALL_ID_SUFFIX = ':resumed';

export function resumedCallId(callId: string): string {
  return `${callId}${RESUMED_CALL_ID_SUFFIX}`;
}
