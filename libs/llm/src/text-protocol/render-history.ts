import type { AssistantMessage, ChatMessage, ToolMessage } from '@platform/contracts';

/** The provider-fields key under which this adapter keeps the model's raw reply. */
export const TEXT_PROTOCOL_FIELD = 'textProtocol';

/** What the adapter stores in `providerFields.textProtocol` of each assistant message it returns. */
export interface TextProtocolFields {
  /** The reply exactly as the inner model wrote it. */
  raw: string;
}

/** The raw reply kept on an assistant message by this adapter, if any. */
function rawReplyOf(message: AssistantMessage): string | undefined {
  const fields = message.providerFields?.[TEXT_PROTOCOL_FIELD];
  if (typeof fields !== 'object' || fields === null) return undefined;
  const raw = (fields as Partial<TextProtocolFields>).raw;
  return typeof raw === 'string' ? raw : undefined;
}

function argumentsJson(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    // History from another provider may hold arguments that never parsed; show them as a string.
    return JSON.stringify(raw);
  }
}

/** Writes a native tool-call message as protocol text, for messages with no raw reply kept. */
function renderActionText(message: AssistantMessage): string {
  const lines = message.content?.trim() ? [`Thought: ${message.content.trim()}`] : [];
  for (const call of message.toolCalls ?? [])
    lines.push(`Action: {"tool": ${JSON.stringify(call.name)}, "arguments": ${argumentsJson(call.arguments)}}`);
  return lines.join('\n');
}

/** A tool result as the observation the model reads next. */
function renderObservation(message: ToolMessage): string {
  const content = message.content.trim() ? message.content : '(no output)';
  // Results the platform made are often already worded "Error: ..."; say it once.
  if (message.isError && !/^error\b/i.test(content.trimStart())) return `Observation: Error: ${content}`;
  return `Observation: ${content}`;
}

function renderAssistant(message: AssistantMessage): ChatMessage {
  const raw = rawReplyOf(message);
  const { [TEXT_PROTOCOL_FIELD]: _ours, ...otherFields } = message.providerFields ?? {};
  const content = raw ?? (message.toolCalls?.length ? renderActionText(message) : message.content);
  return {
    role: 'assistant',
    content,
    ...(message.provider !== undefined ? { provider: message.provider } : {}),
    ...(message.model !== undefined ? { model: message.model } : {}),
    // Other provider fields (e.g. reasoning data) go back to the provider that made them.
    ...(Object.keys(otherFields).length ? { providerFields: otherFields } : {}),
  };
}

/**
 * The text view of a history for a model without native tool calling: tool calls become assistant
 * text, tool results become user messages starting `Observation: `, and `section` (the protocol
 * instructions) is appended to the first system message or, without one, leads a new one. Raw
 * history is not changed; no message of role `tool` and no `toolCalls` reach the inner model.
 */
export function renderTextView(messages: readonly ChatMessage[], section: string | undefined): ChatMessage[] {
  const out = messages.map((message): ChatMessage => {
    if (message.role === 'tool') return { role: 'user', content: renderObservation(message) };
    if (message.role === 'assistant') return renderAssistant(message);
    return message;
  });
  if (section === undefined) return out;
  const system = out.findIndex((message) => message.role === 'system');
  if (system === -1) return [{ role: 'system', content: section }, ...out];
  const first = out[system] as { role: 'system'; content: string };
  out[system] = { role: 'system', content: first.content.trim() ? `${first.content}\n\n${section}` : section };
  return out;
}
