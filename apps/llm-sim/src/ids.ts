import { createHash, randomBytes } from 'node:crypto';
import type { ChatMessage } from './chat-request.js';
import { latestUserIndex } from './conversation.js';

function sha256Hex(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/**
 * A deterministic tool-call id: the same conversation prefix (up to the latest user message),
 * step and call index always give the same id, while any two calls within a conversation differ
 * (later steps have higher indexes; later turns have longer prefixes).
 */
export function toolCallId(messages: readonly ChatMessage[], stepIndex: number, callIndex: number): string {
  const prefix = messages.slice(0, latestUserIndex(messages) + 1);
  return `call_${sha256Hex([prefix, stepIndex, callIndex]).slice(0, 24)}`;
}

/**
 * A deterministic id for a `toolReplies` answer: the same messages and tool always give the same id
 * (so retries see the same id), and it cannot collide with a step's call ids.
 */
export function toolReplyCallId(messages: readonly ChatMessage[], toolName: string): string {
  return `call_${sha256Hex(['toolReply', toolName, messages]).slice(0, 24)}`;
}

/**
 * Identifies "the same request at the same step" for fault counting, so a client's retry of an
 * identical request is recognised and eventually let through.
 */
export function requestFingerprint(scenario: string, messages: readonly ChatMessage[], stepIndex: number): string {
  return sha256Hex([scenario, stepIndex, messages]);
}

/** A fresh completion id in OpenAI's `chatcmpl-...` style (not deterministic: every answer is new). */
export function completionId(): string {
  return `chatcmpl-sim${randomBytes(12).toString('hex')}`;
}
