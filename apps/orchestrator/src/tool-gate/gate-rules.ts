import type { CatalogEntry, ToolLookup } from '@platform/tool-sdk';

/**
 * Who asks for a tool call. Each kind has its own rules at the gate (README, "The tool gate"):
 * `model` and `subtask` calls run in a conversation, so a tool that needs the user (approval, an
 * agent-tool) waits for them there; the others have nobody to ask and are refused such tools.
 */
export type ToolCaller = 'model' | 'subtask' | 'try' | 'condition' | 'executor';

/** The codes the gate refuses a call with, the same for every caller (docs/api.md). */
export const GateRefusalCode = {
  /** The tool exists, but the caller's allowlist (its profile's, a subtask's scope) does not give it. */
  notAllowed: 'TOOL_NOT_ALLOWED',
  /** Every call of the tool needs the user's approval, and the caller cannot ask for it. */
  approvalRequired: 'APPROVAL_REQUIRED',
  /** An agent-tool talks with the user over several turns, and the caller has no conversation. */
  agentTool: 'AGENT_TOOL',
  /** An executor call of a tool its runner did not declare a custom executor. */
  notAnExecutor: 'NOT_AN_EXECUTOR',
  /** The tool is known but no runner serves it right now. */
  runnerUnavailable: 'RUNNER_UNAVAILABLE',
} as const;
export type GateRefusalCode = (typeof GateRefusalCode)[keyof typeof GateRefusalCode];

export interface GateRefusal {
  code: GateRefusalCode;
  message: string;
}

/** One question to the gate: may this caller call this tool? */
export interface GateQuestion {
  caller: ToolCaller;
  tool: string;
  /** The caller's tool allowlist: its profile's, narrowed for a plan subtask. */
  allowsTool: (name: string) => boolean;
  /** How a refusal names the allowlist ("the agent profile 'researcher'", "this subtask"). */
  allowlist: string;
}

/** The gate's answer. `wait_for_user` only for callers in a conversation: the agent pool holds the call. */
export type GateVerdict =
  | { verdict: 'unknown' }
  | { verdict: 'refused'; entry: CatalogEntry; refusal: GateRefusal }
  | { verdict: 'wait_for_user'; entry: CatalogEntry; approval: boolean }
  | { verdict: 'send'; entry: CatalogEntry };

const IN_CONVERSATION: ReadonlySet<ToolCaller> = new Set(['model', 'subtask']);

/** A plain tool whose every call the user must approve first (`platform.requires_approval`). */
export function isGated(entry: CatalogEntry): boolean {
  return entry.kind === 'tool' && entry.requiresApproval;
}

function refused(entry: CatalogEntry, code: GateRefusalCode, message: string): GateVerdict {
  return { verdict: 'refused', entry, refusal: { code, message } };
}

/**
 * The gate's rules, in order: the allowlist, the executor declaration, what needs the user, the
 * runner's availability. The static rules come before availability, so a refusal does not depend
 * on whether the runner happens to be up.
 */
export function judge(question: GateQuestion, found: ToolLookup): GateVerdict {
  if (found.state === 'unknown') return { verdict: 'unknown' };
  const { entry } = found;
  const { caller, tool } = question;
  if (!question.allowsTool(tool))
    return refused(entry, GateRefusalCode.notAllowed, `${question.allowlist} does not let its agents use '${tool}'`);
  if (caller === 'executor' && entry.executor !== true) {
    return refused(
      entry,
      GateRefusalCode.notAnExecutor,
      `'${tool}' is not a custom executor: its runner does not declare it one (platform.executor), so no task may run it as its executor`,
    );
  }
  const inConversation = IN_CONVERSATION.has(caller);
  if (!inConversation && isGated(entry)) {
    return refused(
      entry,
      GateRefusalCode.approvalRequired,
      `'${tool}' needs the user's approval for every call, which is asked for in a conversation; it was not run (ask for it in a message, then approve it in the approvals inbox)`,
    );
  }
  if (!inConversation && entry.kind === 'agent') {
    return refused(
      entry,
      GateRefusalCode.agentTool,
      `'${tool}' is an agent-tool: it talks with the user over several turns, so it runs only in a conversation`,
    );
  }
  if (found.state === 'offline')
    return refused(entry, GateRefusalCode.runnerUnavailable, `no runner serves '${tool}' right now; try again later`);
  if (inConversation && (isGated(entry) || entry.kind === 'agent'))
    return { verdict: 'wait_for_user', entry, approval: isGated(entry) };
  return { verdict: 'send', entry };
}
