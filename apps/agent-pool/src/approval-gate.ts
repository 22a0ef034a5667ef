import { shortenText, type ApprovalDecision, type ApprovalRequest } from '@platform/contracts';

/** What a gated call offers: run it as asked, run it changed, or not at all. */
const GATE_OPTIONS: ApprovalDecision[] = ['approve', 'edit', 'cancel'];

/** Longest JSON of the arguments quoted in the one-line summary (the details carry them all). */
const SUMMARY_ARGUMENT_CHARS = 160;

function quotedArguments(args: Record<string, unknown>): string {
  return shortenText(JSON.stringify(args), SUMMARY_ARGUMENT_CHARS);
}

/**
 * The approval request of a plain tool that requires approval (`platform.requires_approval`),
 * for the call as the model made it: the details are the call's arguments, and an edit changes
 * them. Nothing has run when it is asked.
 */
export function gateApprovalRequest(
  toolName: string,
  args: Record<string, unknown>,
  timeoutMinutes: number,
): { approval: ApprovalRequest; prompt: string } {
  const actionSummary = `Run ${toolName} with ${quotedArguments(args)}`;
  return {
    approval: {
      agentName: toolName,
      actionSummary,
      details: args,
      options: GATE_OPTIONS,
      timeoutMinutes,
      allowModification: true,
    },
    prompt: `The tool ${toolName} needs your approval before it runs: ${actionSummary}. Reply "yes" to run it, "no" to cancel it, or say what to change.`,
  };
}

/**
 * The arguments an approved gated call runs with: as the model made them, or with the user's
 * changes laid over them (top-level fields replaced, new ones added; the tool validates the result).
 */
export function gatedArguments(
  args: Record<string, unknown>,
  decision: 'approve' | 'edit',
  changes: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return decision === 'edit' && changes ? { ...args, ...changes } : args;
}
