import { repairLoneSurrogates, type AssistantMessage, type ToolMessage } from '@platform/contracts';

/**
 * Text a model or a tool produced that could not be kept as it was, and how it was repaired (an
 * unpaired surrogate replaced by U+FFFD; bytes that were not UTF-8, decoded with U+FFFD by the
 * tool transport). Input from users is refused instead (the api); output cannot be sent back, so
 * it is repaired and the step's record says so.
 */
export interface TextRepair {
  source: 'model' | 'tool';
  /** The tool call the text belongs to (a tool's result, or the arguments the model wrote for it). */
  callId?: string;
  /** `content`, or `arguments` of a call. */
  field: 'content' | 'arguments';
  detail: string;
}

function unpaired(replaced: number): string {
  return `${replaced} unpaired UTF-16 surrogate${replaced === 1 ? '' : 's'} replaced by U+FFFD`;
}

/** The model's message with its text made well-formed, and what was repaired. */
export function repairModelMessage(message: AssistantMessage): { message: AssistantMessage; repairs: TextRepair[] } {
  const repairs: TextRepair[] = [];
  let content = message.content;
  if (content) {
    const fixed = repairLoneSurrogates(content);
    if (fixed.replaced) {
      content = fixed.text;
      repairs.push({ source: 'model', field: 'content', detail: unpaired(fixed.replaced) });
    }
  }
  const toolCalls = message.toolCalls?.map((call) => {
    const fixed = repairLoneSurrogates(call.arguments);
    if (!fixed.replaced) return call;
    repairs.push({ source: 'model', callId: call.id, field: 'arguments', detail: unpaired(fixed.replaced) });
    return { ...call, arguments: fixed.text };
  });
  if (repairs.length === 0) return { message, repairs };
  return { message: { ...message, content, ...(toolCalls ? { toolCalls } : {}) }, repairs };
}

/** A tool's result with its text made well-formed; `transport` are repairs the tool client already made (bad bytes). */
export function repairToolMessage(
  message: ToolMessage,
  transport: readonly string[] = [],
): { message: ToolMessage; repairs: TextRepair[] } {
  const repairs: TextRepair[] = transport.map((detail) => ({
    source: 'tool',
    callId: message.toolCallId,
    field: 'content',
    detail,
  }));
  const fixed = repairLoneSurrogates(message.content);
  if (!fixed.replaced) return { message, repairs };
  repairs.push({ source: 'tool', callId: message.toolCallId, field: 'content', detail: unpaired(fixed.replaced) });
  return { message: { ...message, content: fixed.text }, repairs };
}
