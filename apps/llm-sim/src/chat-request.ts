import { z } from 'zod';

// The request schema is deliberately loose (unknown fields pass through): real clients send many
// optional parameters (temperature, seed, parallel_tool_calls, ...) that the simulator ignores but
// must not reject. Only what the simulator reads is checked.

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const Content = z.union([z.string(), z.array(ContentPart)]);

const RequestToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const ChatMessage = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: Content }),
  z.looseObject({ role: z.literal('developer'), content: Content }),
  z.looseObject({ role: z.literal('user'), content: Content }),
  z
    .looseObject({
      role: z.literal('assistant'),
      content: Content.nullish(),
      tool_calls: z.array(RequestToolCall).nullish(),
    })
    // As the real API: an assistant message needs content unless it carries tool calls.
    .refine((m) => m.content != null || (m.tool_calls?.length ?? 0) > 0, {
      message: "Invalid value for 'content': expected a string, got null.",
      path: ['content'],
    }),
  z.looseObject({ role: z.literal('tool'), content: Content, tool_call_id: z.string() }),
  z.looseObject({ role: z.literal('function'), content: Content.nullable(), name: z.string() }),
]);

const ToolDefinition = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

const ToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
]);

/** The subset of an OpenAI Chat Completions request body the simulator understands. */
export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  tools: z.array(ToolDefinition).nullish(),
  tool_choice: ToolChoice.nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

/** A validated Chat Completions request. */
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
/** One message of a validated request. */
export type ChatMessage = z.infer<typeof ChatMessage>;
/** Message content as sent on the wire: a string or an array of content parts. */
export type MessageContent = z.infer<typeof Content>;

/** Why a body was rejected, in the form an OpenAI error body wants it. */
export interface RequestProblem {
  message: string;
  /** The offending field path (e.g. `messages.0.role`), or null when the body as a whole is wrong. */
  param: string | null;
}

/** Validates a parsed JSON body; on failure describes every problem in one readable message. */
export function parseChatCompletionRequest(
  body: unknown,
): { ok: true; request: ChatCompletionRequest } | { ok: false; problem: RequestProblem } {
  const result = ChatCompletionRequestSchema.safeParse(body);
  if (result.success) return { ok: true, request: result.data };
  const parts = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const first = result.error.issues[0];
  const param = first && first.path.length > 0 ? first.path.map(String).join('.') : null;
  return { ok: false, problem: { message: `Invalid request body: ${parts.join('; ')}`, param } };
}

/** True when the request may not receive tool calls: no tools offered, or `tool_choice: "none"`. */
export function toolsDisabled(request: ChatCompletionRequest): boolean {
  return !request.tools || request.tools.length === 0 || request.tool_choice === 'none';
}
