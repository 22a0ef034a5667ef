import { shortenText, type ApprovalRequest } from '@platform/contracts';
import type { Missing } from './agent-fields.js';

const MAX_VALUE_CHARS = 200;

/** A value as the user reads it: text as is, anything else as JSON, cut to a readable length. */
export function showValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return shortenText(text, MAX_VALUE_CHARS);
}

/** The question for the user when fields are missing or were rejected. */
export function inputPrompt(agentName: string, missing: readonly Missing[]): string {
  const lines = missing.map((m) => {
    if (m.reason === undefined) return `- ${m.name}: ${m.description}`;
    const given = m.given === undefined ? 'the value given' : `"${showValue(m.given)}"`;
    return `- ${m.name}: ${m.description}. ${given} was not accepted: ${m.reason}`;
  });
  return [`To continue with ${agentName}, I need:`, ...lines].join('\n');
}

/** How to answer an approval request, with or without `edit`. */
function answerHint(request: ApprovalRequest): string {
  return request.options.includes('edit')
    ? 'Reply "approve" to go ahead, say what to change, or "cancel".'
    : 'Reply "approve" to go ahead or "cancel".';
}

/** The question for the user before an action that needs approval; `notice` explains a repeated question. */
export function approvalPrompt(request: ApprovalRequest, notice?: string): string {
  const details = Object.entries(request.details).map(([key, value]) => `- ${key}: ${showValue(value)}`);
  return [
    ...(notice ? [notice] : []),
    `Please confirm: ${request.actionSummary}`,
    ...details,
    answerHint(request),
  ].join('\n');
}
