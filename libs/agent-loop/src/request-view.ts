import type { AssistantMessage, ChatMessage, ToolMessage } from '@platform/contracts';
import type { ContextManager } from './context-manager.js';
import type { LoopConfig } from './loop-config.js';
import { toUnits } from './message-units.js';

/**
 * How hard a view squeezes the history: `full` trims only past the threshold; the overflow
 * chain escalates to `trimmed`, then `tool_results_truncated`, then `force_trimmed`.
 */
export const ViewStages = ['full', 'trimmed', 'tool_results_truncated', 'force_trimmed'] as const;
export type ViewStage = (typeof ViewStages)[number];

/** Why a view differs from raw history: every cut, flattening and repair is recorded. */
export interface ViewDiagnostic {
  kind:
    | 'history_trimmed'
    | 'tool_result_truncated'
    | 'tool_exchange_masked'
    | 'provider_fields_dropped'
    | 'orphan_tool_result_dropped'
    | 'missing_tool_result_filled';
  detail: string;
  originalChars?: number;
  keptChars?: number;
}

export interface RequestView {
  messages: ChatMessage[];
  stage: ViewStage;
  estimatedTokens: number;
  diagnostics: ViewDiagnostic[];
}

export interface ViewTarget {
  provider: string;
  model: string;
}

/** Closes gaps a provider would reject: drops results without a call, fills calls without a result. */
function repair(raw: readonly ChatMessage[], diagnostics: ViewDiagnostic[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const unit of toUnits(raw)) {
    const messages = raw.slice(unit.start, unit.end);
    if (unit.kind === 'orphan_tool_result') {
      const orphan = messages[0] as ToolMessage;
      diagnostics.push({
        kind: 'orphan_tool_result_dropped',
        detail: `result ${orphan.toolCallId} has no matching call`,
      });
      continue;
    }
    out.push(...messages);
    if (unit.kind !== 'exchange') continue;
    const call = messages[0] as AssistantMessage;
    const answered = new Set(messages.slice(1).map((m) => (m as ToolMessage).toolCallId));
    for (const missing of (call.toolCalls ?? []).filter((c) => !answered.has(c.id))) {
      diagnostics.push({
        kind: 'missing_tool_result_filled',
        detail: `call ${missing.id} (${missing.name}) had no recorded result`,
      });
      out.push({
        role: 'tool',
        toolCallId: missing.id,
        toolName: missing.name,
        content: 'Error: no result was recorded for this call.',
        status: 'failed',
        isError: true,
        synthetic: true,
        errorCode: 'NO_RESULT',
      });
    }
  }
  return out;
}

function stripProviderFields(message: AssistantMessage): AssistantMessage {
  const { providerFields: _dropped, ...rest } = message;
  return {
    ...rest,
    ...(rest.toolCalls ? { toolCalls: rest.toolCalls.map(({ providerFields: _f, ...call }) => call) } : {}),
  };
}

/**
 * Makes messages from another provider or model safe to send: tool exchanges of another provider
 * are flattened into assistant text (the target may reject foreign tool-call shapes), and
 * provider-specific fields of another model are dropped. Messages of the target pass untouched.
 */
function mask(messages: readonly ChatMessage[], target: ViewTarget, diagnostics: ViewDiagnostic[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const unit of toUnits(messages)) {
    const first = messages[unit.start]!;
    const foreignProvider =
      first.role === 'assistant' && first.provider !== undefined && first.provider !== target.provider;
    if (unit.kind === 'exchange' && foreignProvider && first.role === 'assistant') {
      const results = new Map(
        messages.slice(unit.start + 1, unit.end).map((m) => [(m as ToolMessage).toolCallId, m as ToolMessage]),
      );
      const lines = (first.toolCalls ?? []).map((call) => {
        const result = results.get(call.id);
        return `[Earlier tool call ${call.name}(${call.arguments}) -> ${result ? (result.isError ? `error: ${result.content}` : result.content) : 'no result'}]`;
      });
      out.push({ role: 'assistant', content: [first.content, ...lines].filter(Boolean).join('\n') });
      diagnostics.push({
        kind: 'tool_exchange_masked',
        detail: `${first.toolCalls?.length ?? 0} call(s) made with ${first.provider}/${first.model ?? '?'} flattened for ${target.provider}/${target.model}`,
      });
      continue;
    }
    for (const message of messages.slice(unit.start, unit.end)) {
      const foreignModel =
        message.role === 'assistant' &&
        message.provider !== undefined &&
        (message.provider !== target.provider || message.model !== target.model);
      const hasFields =
        message.role === 'assistant' &&
        (message.providerFields !== undefined || message.toolCalls?.some((c) => c.providerFields));
      if (message.role === 'assistant' && foreignModel && hasFields) {
        out.push(stripProviderFields(message));
        diagnostics.push({
          kind: 'provider_fields_dropped',
          detail: `fields of ${message.provider}/${message.model ?? '?'} not sent to ${target.provider}/${target.model}`,
        });
      } else {
        out.push(message);
      }
    }
  }
  return out;
}

/** Cuts each tool result to `maxChars`; the diagnostics are kept by the cut message, for those a trim keeps. */
function truncateToolResults(
  messages: readonly ChatMessage[],
  cm: ContextManager,
  maxChars: number,
): { messages: ChatMessage[]; cuts: Map<ChatMessage, ViewDiagnostic> } {
  const cuts = new Map<ChatMessage, ViewDiagnostic>();
  const out = messages.map((message) => {
    if (message.role !== 'tool') return message;
    const cut = cm.truncateToolResult(message.content, maxChars);
    if (!cut.truncated) return message;
    const shortened = { ...message, content: cut.text };
    cuts.set(shortened, {
      kind: 'tool_result_truncated',
      detail: `result of ${message.toolName} (${message.toolCallId})`,
      originalChars: cut.originalChars,
      keptChars: cut.text.length,
    });
    return shortened;
  });
  return { messages: out, cuts };
}

/**
 * Builds the request for one model call from raw history, without changing raw history:
 * repair, masking across provider or model switches, trimming for the stage, and tool-result
 * truncation. The diagnostics explain every difference.
 */
export function buildRequestView(
  raw: readonly ChatMessage[],
  target: ViewTarget,
  stage: ViewStage,
  cm: ContextManager,
  config: LoopConfig,
): RequestView {
  const diagnostics: ViewDiagnostic[] = [];
  let messages = mask(repair(raw, diagnostics), target, diagnostics);

  // Results are cut first, so that trimming measures what will be sent.
  const perResult =
    stage === 'tool_results_truncated' || stage === 'force_trimmed'
      ? Math.min(config.overflowToolResultChars, cm.maxToolResultChars())
      : cm.maxToolResultChars();
  const capped = truncateToolResults(messages, cm, perResult);
  const before = capped.messages.length;
  if (stage === 'full') messages = cm.trimIfNeeded(capped.messages);
  else if (stage === 'force_trimmed') messages = cm.forceTrim(capped.messages);
  else messages = cm.trim(capped.messages);
  if (messages.length < before)
    diagnostics.push({
      kind: 'history_trimmed',
      detail: `kept ${messages.length} of ${before} messages (stage ${stage})`,
    });
  for (const message of messages) {
    const cut = capped.cuts.get(message);
    if (cut) diagnostics.push(cut);
  }
  return { messages, stage, estimatedTokens: cm.estimateTokens(messages), diagnostics };
}
