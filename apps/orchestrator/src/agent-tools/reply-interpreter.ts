import type { ModelPort } from '@platform/agent-loop';
import type { ApprovalDecision } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { readApprovalReply } from '@platform/tool-sdk';
import { z } from 'zod';

export interface PendingApproval {
  approvalId: string;
  agentName: string;
  actionSummary: string;
  details: Record<string, unknown>;
  allowModification: boolean;
}

export interface ApprovalChoice {
  approvalId: string;
  decision: ApprovalDecision;
  changes?: Record<string, unknown>;
}

export interface FieldRequest {
  agentName: string;
  prompt: string;
  /** JSON Schema properties of the fields still needed. */
  properties: Record<string, unknown>;
}

const DECISIONS_TOOL = 'record_approval_decisions';
const FIELDS_TOOL = 'provide_fields';

const Decisions = z.object({
  decisions: z.array(
    z.object({
      approval: z.number().int().positive(),
      decision: z.enum(['approve', 'edit', 'cancel']),
      changes: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

/**
 * Reads a user's free-text reply to waiting agents with one model call each, using a forced tool
 * call as structured output: which approval requests the reply decides (and how, in the order
 * the user confirmed them), or which field values a reply to a prompt for input contains. A
 * clear "yes" or "no" needs no model. A model that fails or answers nonsense decides nothing:
 * the agents keep waiting and the user is asked again.
 */
export class ReplyInterpreter {
  constructor(private readonly logger: Logger) {}

  async approvals(model: ModelPort, reply: string, pending: readonly PendingApproval[]): Promise<ApprovalChoice[]> {
    if (pending.length === 0) return [];
    const plain = readApprovalReply(reply);
    if (plain && plain.decision !== 'edit' && !plain.changes)
      return pending.map((p) => ({ approvalId: p.approvalId, decision: plain.decision }));
    const list = pending
      .map(
        (p, i) =>
          `${i + 1}. ${p.agentName}: ${p.actionSummary} ${JSON.stringify(p.details)}${p.allowModification ? '' : ' (changes not allowed)'}`,
      )
      .join('\n');
    const args = await this.forcedCall(model, DECISIONS_TOOL, {
      system: `The user was asked to approve these actions:\n${list}\n\nCall ${DECISIONS_TOOL} with one decision per action the reply decides, in the order the user confirmed them. Use "edit" with "changes" (field -> new value) when the user wants an action changed before it runs. Leave out actions the reply does not mention.`,
      reply,
      description: 'Records the decisions of a reply on pending approval requests.',
      parameters: {
        type: 'object',
        properties: {
          decisions: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                approval: {
                  type: 'integer',
                  minimum: 1,
                  maximum: pending.length,
                  description: 'The number of the action.',
                },
                decision: { type: 'string', enum: ['approve', 'edit', 'cancel'] },
                changes: { type: 'object', description: 'For edit: field name -> new value.' },
              },
              required: ['approval', 'decision'],
            },
          },
        },
        required: ['decisions'],
      },
    });
    const parsed = Decisions.safeParse(args);
    if (!parsed.success) return [];
    const seen = new Set<string>();
    const choices: ApprovalChoice[] = [];
    for (const d of parsed.data.decisions) {
      const target = pending[d.approval - 1];
      if (!target || seen.has(target.approvalId)) continue;
      seen.add(target.approvalId);
      choices.push({
        approvalId: target.approvalId,
        decision: d.decision,
        ...(d.changes ? { changes: d.changes } : {}),
      });
    }
    return choices;
  }

  async fields(model: ModelPort, reply: string, request: FieldRequest): Promise<Record<string, unknown>> {
    const args = await this.forcedCall(model, FIELDS_TOOL, {
      system: `${request.agentName} asked the user: "${request.prompt}". Call ${FIELDS_TOOL} with the values the reply gives for these fields; leave out fields it does not give.`,
      reply,
      description: 'Provides field values taken from the user reply.',
      parameters: { type: 'object', properties: request.properties },
    });
    return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  }

  private async forcedCall(
    model: ModelPort,
    tool: string,
    ask: { system: string; reply: string; description: string; parameters: Record<string, unknown> },
  ): Promise<unknown> {
    try {
      const response = await model.complete({
        messages: [
          { role: 'system', content: ask.system },
          { role: 'user', content: ask.reply },
        ],
        tools: [{ name: tool, description: ask.description, parameters: ask.parameters }],
        toolChoice: 'auto',
      });
      const call = response.message.toolCalls?.find((c) => c.name === tool);
      return call ? (JSON.parse(call.arguments) as unknown) : undefined;
    } catch (err) {
      this.logger.warn({ tool, err: (err as Error).message }, 'could not read the reply to waiting agents');
      return undefined;
    }
  }
}
