import type { AssistantMessage, ChatMessage, ToolCall } from '@platform/contracts';
import type { ToolSchema } from '@platform/agent-loop';
import type OpenAI from 'openai';

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type WireTool = OpenAI.Chat.Completions.ChatCompletionTool;
type WireToolCall = OpenAI.Chat.Completions.ChatCompletionMessageToolCall;

const KNOWN_TOOL_CALL_KEYS = new Set(['id', 'type', 'function', 'index']);
const KNOWN_MESSAGE_KEYS = new Set([
  'role',
  'content',
  'tool_calls',
  'refusal',
  'annotations',
  'audio',
  'function_call',
]);

/** Renders platform messages in the OpenAI Chat Completions format; provider fields go back verbatim. */
export function toOpenAIMessages(messages: ChatMessage[]): WireMessage[] {
  return messages.map((message): WireMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      case 'assistant': {
        // The API refuses an assistant message with neither content nor tool calls (an empty reply
        // kept in history would break every later turn of the conversation).
        const content = message.content === null && !message.toolCalls?.length ? '' : message.content;
        const wire: WireMessage & Record<string, unknown> = {
          ...(message.providerFields ?? {}),
          role: 'assistant',
          content,
        };
        if (message.toolCalls?.length) {
          wire.tool_calls = message.toolCalls.map((call) => ({
            ...(call.providerFields ?? {}),
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          }));
        }
        return wire;
      }
    }
  });
}

export function toOpenAITools(tools: ToolSchema[]): WireTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

function extraFields(object: object, known: Set<string>): Record<string, unknown> | undefined {
  const extra = Object.fromEntries(
    Object.entries(object).filter(([key, value]) => !known.has(key) && value !== undefined && value !== null),
  );
  return Object.keys(extra).length ? extra : undefined;
}

function fromOpenAIToolCall(call: WireToolCall): ToolCall {
  if (call.type !== 'function') {
    return {
      id: call.id,
      name: `unsupported:${call.type}`,
      arguments: '{}',
      providerFields: extraFields(call, KNOWN_TOOL_CALL_KEYS),
    };
  }
  const providerFields = extraFields(call, KNOWN_TOOL_CALL_KEYS);
  return {
    id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
    ...(providerFields ? { providerFields } : {}),
  };
}

/**
 * Reads an OpenAI response message into a platform assistant message, keeping unknown fields. A
 * refusal (the model declined, `refusal` set and no content) is the message's text: it is what the
 * user should read.
 */
export function fromOpenAIMessage(
  message: OpenAI.Chat.Completions.ChatCompletionMessage,
  provider: string,
  model: string,
): AssistantMessage {
  const toolCalls = (message.tool_calls ?? []).map(fromOpenAIToolCall);
  const providerFields = extraFields(message, KNOWN_MESSAGE_KEYS);
  return {
    role: 'assistant',
    content: message.content ?? message.refusal ?? null,
    ...(toolCalls.length ? { toolCalls } : {}),
    provider,
    model,
    ...(providerFields ? { providerFields } : {}),
  };
}
