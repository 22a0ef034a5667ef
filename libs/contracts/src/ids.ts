import { z } from 'zod';

/** Identifier charset shared by tenants, conversations and runs: safe in URLs, subjects, logs and SQL. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const ID_RULE = 'must be 1-128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit';

/** The tenant a request acts for; comes from the verified JWT at the api and travels in every call. */
export const TenantId = z.string().regex(ID_PATTERN, ID_RULE);
export type TenantId = z.infer<typeof TenantId>;

/** A conversation, chosen by the client; unique within its tenant. */
export const ConversationId = z.string().regex(ID_PATTERN, ID_RULE);
export type ConversationId = z.infer<typeof ConversationId>;

/** One handled message (a "turn") and everything it caused. */
export const RunId = z.string().regex(ID_PATTERN, ID_RULE);
export type RunId = z.infer<typeof RunId>;

/**
 * A tool call's id as the model gave it. Stable across retries and resumes, so runners can
 * dedupe side effects on it. Providers use various formats; only length and printability are checked.
 */
export const TOOL_CALL_ID_PATTERN = /^[\x21-\x7e]{1,256}$/;
export const ToolCallId = z
  .string()
  .regex(TOOL_CALL_ID_PATTERN, 'must be 1-256 printable ASCII characters without spaces');
export type ToolCallId = z.infer<typeof ToolCallId>;

/** Tool names as models may call them (the OpenAI function-name rule); also valid as a NATS subject token. */
export const ToolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');
export type ToolName = z.infer<typeof ToolName>;
