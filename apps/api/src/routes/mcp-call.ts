import { randomUUID } from 'node:crypto';
import type { orchestratorV1 } from '@platform/proto';
import type { FastifyRequest } from 'fastify';
import { conversationCallerOf, type ConversationClient } from '../access/conversation-caller.js';
import type { RunEvents } from '../events/run-event-reader.js';
import { toHttpError } from '../http-errors.js';
import { decideApproval, type ApprovalDecisionDeps } from '../turns/approval-decision.js';
import { facadeTurn } from '../turns/facade-turn.js';
import { newRunId, type TurnRequest, type TurnRunner } from '../turns/turn-runner.js';
import { elicitationFor, replyOf, type ElicitationAnswer, type ElicitationParams } from './mcp-elicitation.js';
import { CallProgress, type ProgressSender } from './mcp-progress.js';
import { pendingOf, refusedResult, toolCallResult, type TurnOutcome } from './mcp-results.js';
import { AgentToolArguments, type AgentTool } from './mcp-tools.js';

export interface McpCallDeps {
  turns: Pick<TurnRunner, 'run'>;
  events: RunEvents;
  conversations: Pick<ConversationClient, 'getConversation'>;
  /** What deciding an elicited approval needs (the approvals route's own). */
  approvals: ApprovalDecisionDeps;
  maxMessageChars: number;
  turnWaitMs: number;
}

/** One tools/call as it arrived: its HTTP request (the caller), and what the client offers. */
export interface McpCallContext {
  request: FastifyRequest;
  /** Aborts when the client cancels the call or goes away: the wait stops, the run goes on. */
  signal: AbortSignal;
  /** Present when the client sent a progress token. */
  progress?: ProgressSender | undefined;
  /** Present when the client declared form elicitation; rejects when the user does not answer in time. */
  elicit?: ((params: ElicitationParams) => Promise<ElicitationAnswer>) | undefined;
}

/** The most questions one call asks before it returns the waiting result (a run that keeps asking). */
const MAX_ELICITATIONS = 8;

const MCP_CONVERSATION_PREFIX = 'mcp-';

/**
 * Runs one call of an agent's tool (docs/protocols.md#mcp): the message as a turn of the agent,
 * protocol `mcp`, in a new conversation or the one `conversationId` names (the caller's only),
 * with its run events told as progress. A run that waits for the user is asked about over MCP
 * elicitation when the client can answer one (an approval decided as POST /v1/approvals does, a
 * question answered as the next message), then continues; else, or when the user does not
 * answer, the result says what it waits for and how to answer later. Anything refused is an
 * `isError` result with the api's error code.
 */
export async function callAgentTool(
  deps: McpCallDeps,
  tool: AgentTool,
  rawArguments: unknown,
  context: McpCallContext,
): Promise<Record<string, unknown>> {
  const parsed = AgentToolArguments.safeParse(rawArguments ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refusedResult('INVALID_ARGUMENTS', `${issue.path.join('.') || 'arguments'}: ${issue.message}`);
  }
  const args = parsed.data;
  try {
    // Another tenant's (or user's unshared) conversation is refused as unknown, never continued.
    if (args.conversationId !== undefined)
      await deps.conversations.getConversation({
        caller: conversationCallerOf(context.request),
        conversationId: args.conversationId,
      });
    const conversationId = args.conversationId ?? `${MCP_CONVERSATION_PREFIX}${randomUUID()}`;
    return await new ToolCall(deps, tool, context).run(conversationId, args.message);
  } catch (error) {
    const { body, internal } = toHttpError(error);
    if (internal) context.request.log.error({ err: error }, 'MCP tool call failed');
    return refusedResult(body.error.code, body.error.message);
  }
}

/** One call's turns: the first, then one per elicited answer. */
class ToolCall {
  private readonly progress: CallProgress;

  constructor(
    private readonly deps: McpCallDeps,
    private readonly tool: AgentTool,
    private readonly context: McpCallContext,
  ) {
    this.progress = new CallProgress(deps.events, context.progress);
  }

  async run(conversationId: string, message: string): Promise<Record<string, unknown>> {
    let outcome = await this.turn(conversationId, message);
    for (let asked = 0; asked < MAX_ELICITATIONS && this.context.elicit; asked++) {
      const [item] = outcome.result.status === 'waiting' ? pendingOf(outcome.result) : [];
      if (!item) break;
      let answer: ElicitationAnswer;
      try {
        answer = await this.context.elicit(elicitationFor(item));
      } catch (error) {
        // Not answered in time, or the client failed it: the run still waits; say how to answer later.
        const reason = error instanceof Error ? error.message : String(error);
        return toolCallResult(this.tool, outcome, `The question was not answered (${reason}).`);
      }
      const reply = replyOf(item, answer);
      if (reply.kind === 'none') return toolCallResult(this.tool, outcome, reply.note);
      outcome =
        reply.kind === 'message'
          ? await this.turn(outcome.conversationId, reply.content)
          : await this.decision(reply.approvalId, reply.decision);
    }
    return toolCallResult(this.tool, outcome);
  }

  private async turn(conversationId: string, content: string): Promise<TurnOutcome> {
    const turn: TurnRequest = facadeTurn(this.context.request, {
      protocol: 'mcp',
      conversationId,
      content,
      model: this.tool.agentId,
      stream: false,
      maxMessageChars: this.deps.maxMessageChars,
    });
    const result = await this.followed((runId) =>
      this.deps.turns.run(turn, runId, Date.now() + this.deps.turnWaitMs, this.context.signal),
    );
    return { result, conversationId };
  }

  private async decision(approvalId: string, decision: Parameters<typeof decideApproval>[3]): Promise<TurnOutcome> {
    let conversationId = '';
    const result = await this.followed(async (runId) => {
      const decided = await decideApproval(
        this.deps.approvals,
        this.context.request,
        approvalId,
        decision,
        this.context.signal,
        { protocol: 'mcp', runId },
      );
      conversationId = decided.conversationId;
      return decided.result;
    });
    return { result, conversationId };
  }

  /** Runs a turn under a new run id whose events are told as progress while it runs. */
  private async followed(
    start: (runId: string) => Promise<orchestratorV1.HandleMessageResponse>,
  ): Promise<orchestratorV1.HandleMessageResponse> {
    const runId = newRunId();
    const following = this.progress.follow(runId);
    let ran = false;
    try {
      const result = await start(runId);
      ran = true;
      return result;
    } finally {
      await following.stop(ran);
    }
  }
}
