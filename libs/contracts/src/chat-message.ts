import { z } from 'zod';
import { ToolCallId, ToolName } from './ids.js';
import { ToolResultStatus } from './tool-result-status.js';

/**
 * Fields a model provider attached to a message or tool call that the platform does not interpret
 * (e.g. reasoning signatures). Kept verbatim in raw history; request views decide whether to send them.
 */
const ProviderFields = z.record(z.string(), z.unknown());
type ProviderFields = z.infer<typeof ProviderFields>;

/** A tool call as the model produced it. `arguments` is the raw JSON text, unparsed and unrepaired. */
export const ToolCall = z.object({
  id: ToolCallId,
  name: z.string().min(1).max(256),
  arguments: z.string(),
  providerFields: ProviderFields.optional(),
});
export type ToolCall = z.infer<typeof ToolCall>;

const SystemMessage = z.object({
  role: z.literal('system'),
  content: z.string(),
});
type SystemMessage = z.infer<typeof SystemMessage>;

const UserMessage = z.object({
  role: z.literal('user'),
  content: z.string(),
  /**
   * Set when the platform, not the user, wrote it to the model: a text-protocol parse error sent
   * back as the next observation. Clients showing a conversation leave such messages out.
   */
  synthetic: z.boolean().optional(),
});
type UserMessage = z.infer<typeof UserMessage>;

export const AssistantMessage = z.object({
  role: z.literal('assistant'),
  content: z.string().nullable(),
  toolCalls: z.array(ToolCall).optional(),
  /** Which provider and model produced this message; request views mask tool artifacts across a switch. */
  provider: z.string().optional(),
  model: z.string().optional(),
  providerFields: ProviderFields.optional(),
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;

/** The one result a tool call gets, real or synthetic. */
export const ToolMessage = z.object({
  role: z.literal('tool'),
  toolCallId: ToolCallId,
  toolName: z.union([ToolName, z.string().min(1).max(256)]),
  content: z.string(),
  status: ToolResultStatus,
  isError: z.boolean(),
  /** Set when the platform, not a tool, produced this result (timeout, denied, loop stopped...). */
  synthetic: z.boolean().optional(),
  errorCode: z.string().optional(),
});
export type ToolMessage = z.infer<typeof ToolMessage>;

/** A message of a conversation, exactly as stored in raw history. */
export const ChatMessage = z.discriminatedUnion('role', [SystemMessage, UserMessage, AssistantMessage, ToolMessage]);
export type ChatMessage = z.infer<typeof ChatMessage>;
