/** One tool call of a reply, arguments already serialised. */
interface ReplyToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Why the model stopped, as OpenAI reports it. */
type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls';

/** The assistant's answer, independent of streaming or not. */
export interface AssistantReply {
  content: string | null;
  toolCalls: ReplyToolCall[];
  finishReason: FinishReason;
}
