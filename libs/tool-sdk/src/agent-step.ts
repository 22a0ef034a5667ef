import {
  USER_CANCELLED_MESSAGE,
  type AgentCallRequest,
  type AgentStepInput,
  type AgentStepOutput,
  type ApprovalRequest,
  type MissingField,
} from '@platform/contracts';
import { applyChanges, checkChanges, collectFields, mergeGiven, type Collection } from './agent-fields.js';
import { approvalFor, pendingApproval } from './agent-approval.js';
import { approvalPrompt, inputPrompt } from './agent-prompts.js';
import type { ApprovalReply } from './approval-reply.js';
import type { AgentToolContext, AgentToolDefinition } from './define-agent-tool.js';
import type { ToolContext } from './define-tool.js';

type ApprovalStep = Extract<AgentStepInput, { phase: 'approval' }>;

/** Notices that explain why an approval request is asked again. */
export const APPROVAL_NOTICE = {
  unclear: 'I could not tell whether you want to go ahead.',
  noDecision: 'This action is waiting for your decision.',
  notModifiable: 'This action cannot be changed; approve it as it is or cancel it.',
  noChanges: 'Say which details to change.',
  rejectedChanges: (problems: string[]): string =>
    `The changes were not applied:\n${problems.map((p) => `- ${p}`).join('\n')}`,
} as const;

function waitingForInput(agent: AgentToolDefinition, collection: Collection): AgentStepOutput {
  const missing: MissingField[] = collection.missing.map(({ name, description, reason }) => ({
    name,
    description,
    ...(reason === undefined ? {} : { reason }),
  }));
  return {
    state: 'waiting_for_input',
    schemaVersion: agent.schemaVersion,
    collected: collection.collected,
    prompt: inputPrompt(agent.name, collection.missing),
    missing,
  };
}

function waitingForApproval(
  agent: AgentToolDefinition,
  collected: Record<string, unknown>,
  approval: ApprovalRequest,
  notice?: string,
): AgentStepOutput {
  return {
    state: 'waiting_for_approval',
    schemaVersion: agent.schemaVersion,
    collected,
    prompt: approvalPrompt(approval, notice),
    approval,
  };
}

async function execute(
  agent: AgentToolDefinition,
  collection: Collection,
  context: ToolContext,
): Promise<AgentStepOutput> {
  const agentContext: AgentToolContext = { ...context, taskInstruction: collection.taskInstruction };
  const result = await agent.run(collection.values, agentContext);
  return {
    state: 'completed',
    schemaVersion: agent.schemaVersion,
    collected: collection.collected,
    result: result ?? null,
  };
}

/** Start and input steps: collect, then ask for what is missing, ask for approval, or run. */
async function advance(
  agent: AgentToolDefinition,
  given: Record<string, unknown>,
  context: ToolContext,
): Promise<AgentStepOutput> {
  const collection = collectFields(agent, given);
  if (collection.missing.length > 0) return waitingForInput(agent, collection);
  const approval = await approvalFor(agent, collection.values, collection.collected);
  if (approval) return waitingForApproval(agent, collection.collected, approval);
  return execute(agent, collection, context);
}

function decisionOf(agent: AgentToolDefinition, step: ApprovalStep): ApprovalReply | undefined {
  if (step.decision) return { decision: step.decision, ...(step.changes ? { changes: step.changes } : {}) };
  if (step.reply !== undefined) return agent.readApprovalReply(step.reply);
  return undefined;
}

/** The user answered an approval request: run, apply changes and run, cancel, or ask again. */
async function decide(agent: AgentToolDefinition, step: ApprovalStep, context: ToolContext): Promise<AgentStepOutput> {
  const reply = decisionOf(agent, step);
  const collection = collectFields(agent, step.collected);
  if (reply?.decision === 'cancel') {
    return {
      state: 'cancelled',
      schemaVersion: agent.schemaVersion,
      collected: collection.collected,
      message: USER_CANCELLED_MESSAGE,
    };
  }
  // The stored fields no longer hold (e.g. a validator got stricter): collect again before acting.
  if (collection.missing.length > 0) return waitingForInput(agent, collection);
  const approval = await pendingApproval(agent, collection.values, collection.collected);
  if (!reply)
    return waitingForApproval(
      agent,
      collection.collected,
      approval,
      step.reply === undefined ? APPROVAL_NOTICE.noDecision : APPROVAL_NOTICE.unclear,
    );
  if (reply.decision === 'approve') return execute(agent, collection, context);

  if (!approval.allowModification)
    return waitingForApproval(agent, collection.collected, approval, APPROVAL_NOTICE.notModifiable);
  const changes = reply.changes ?? {};
  if (Object.keys(changes).length === 0)
    return waitingForApproval(agent, collection.collected, approval, APPROVAL_NOTICE.noChanges);
  const problems = checkChanges(agent, changes);
  if (problems.length > 0)
    return waitingForApproval(agent, collection.collected, approval, APPROVAL_NOTICE.rejectedChanges(problems));
  // The user approved the action with these changes ("change the flight to a window seat"): it runs.
  const edited = collectFields(agent, applyChanges(collection.collected, changes));
  if (edited.missing.length > 0) return waitingForInput(agent, edited);
  return execute(agent, edited, context);
}

/**
 * Runs one step of the agent step protocol (libs/contracts/src/agent-protocol.ts). Pure apart from
 * the agent's own `approval` and `run`: no state is kept between calls; everything needed comes in
 * `request` and goes back in the output. `arguments` is read by the start step only.
 * Throws what `run` (or a validator) throws; the runner turns that into a `failed` response.
 */
export function runAgentStep(
  agent: AgentToolDefinition,
  request: AgentCallRequest,
  context: ToolContext,
): Promise<AgentStepOutput> {
  const step = request.agent ?? { phase: 'start' };
  switch (step.phase) {
    case 'start':
      return advance(agent, request.arguments, context);
    case 'input':
      return advance(agent, mergeGiven(step.collected, step.fields), context);
    case 'approval':
      return decide(agent, step, context);
  }
}
