import type { ApprovalDecision } from '../turns/approval-decision.js';
import type { PendingItem } from './mcp-results.js';

/** An MCP form elicitation (`elicitation/create` params) as this api asks them. */
export interface ElicitationParams {
  [key: string]: unknown;
  message: string;
  requestedSchema: {
    type: 'object';
    properties: Record<
      string,
      { type: 'string'; title: string; description?: string; enum?: string[]; minLength?: number }
    >;
    required: string[];
  };
}

/** The client's answer to an elicitation (the SDK's ElicitResult). */
export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown> | undefined;
}

/** What an elicitation's answer does to the waiting run. */
export type ElicitedReply =
  /** Decide the approval, as POST /v1/approvals/{approvalId} does. */
  | { kind: 'decision'; approvalId: string; decision: ApprovalDecision }
  /** Send the answer as the conversation's next message (an agent-tool's question is answered so). */
  | { kind: 'message'; content: string }
  /** Leave the run waiting: the result says what it waits for and how to answer later. */
  | { kind: 'none'; note: string };

/** Whether a client's capabilities include form elicitation (an empty `elicitation` object means form). */
export function supportsFormElicitation(
  capabilities: { elicitation?: { form?: object; url?: object } } | undefined,
): boolean {
  const elicitation = capabilities?.elicitation;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The elicitation that asks the user what a waiting run waits for: an approval's decision, or an agent-tool's question. */
export function elicitationFor(item: PendingItem): ElicitationParams {
  if (item.waitingFor === 'approval' && item.approval) {
    const { actionSummary, details, options, allowModification } = item.approval;
    const offered = options.filter((o) => o !== 'edit' || allowModification);
    return {
      message: `${item.prompt ? `${item.prompt}\n` : ''}${actionSummary}\nDetails: ${JSON.stringify(details)}`,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: { type: 'string', title: 'Decision', enum: offered },
          ...(offered.includes('edit')
            ? {
                changes: {
                  type: 'string',
                  title: 'Changes',
                  description: 'For "edit": the fields to change, as a JSON object, e.g. {"seat": "window"}.',
                },
              }
            : {}),
        },
        required: ['decision'],
      },
    };
  }
  return {
    message: item.prompt || `'${item.agentName}' needs your input.`,
    requestedSchema: {
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer', minLength: 1 } },
      required: ['answer'],
    },
  };
}

function changesOf(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the user's answer to {@link elicitationFor} does. An approval: `accept` decides it as
 * chosen, `decline` cancels the action (the user said no); an agent-tool's question: `accept`
 * sends the answer as the next message. Dismissed (`cancel`), declined questions and answers that
 * do not fit leave the run waiting.
 */
export function replyOf(item: PendingItem, answer: ElicitationAnswer): ElicitedReply {
  if (answer.action === 'cancel') return { kind: 'none', note: 'The question was dismissed; the run still waits.' };
  if (item.waitingFor === 'approval' && item.approval) {
    const { approvalId, options } = item.approval;
    if (answer.action === 'decline')
      return options.includes('cancel')
        ? { kind: 'decision', approvalId, decision: { decision: 'cancel' } }
        : { kind: 'none', note: 'Declined, but this approval cannot be cancelled; the run still waits.' };
    const decision = answer.content?.['decision'];
    if (decision === 'approve' || decision === 'cancel')
      return { kind: 'decision', approvalId, decision: { decision } };
    if (decision === 'edit') {
      const changes = changesOf(answer.content?.['changes']);
      return changes
        ? { kind: 'decision', approvalId, decision: { decision: 'edit', changes } }
        : { kind: 'none', note: 'An "edit" needs its changes as a JSON object; the run still waits.' };
    }
    return { kind: 'none', note: `"${String(decision)}" is not a decision this approval offers; the run still waits.` };
  }
  if (answer.action === 'decline') return { kind: 'none', note: 'The question was declined; the run still waits.' };
  const content = answer.content?.['answer'];
  return typeof content === 'string' && content.trim()
    ? { kind: 'message', content }
    : { kind: 'none', note: 'The answer was empty; the run still waits.' };
}
