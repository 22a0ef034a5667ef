import type { AssistantMessage, ChatMessage, ToolResultStatus } from '@platform/contracts';
import type { TokenUsage } from './model-port.js';
import type { PendingAgent } from './tool-port.js';
import type { ViewDiagnostic } from './request-view.js';
import type { TextRepair } from './text-repairs.js';

/** Why a loop ended: a closed set. */
export const StopReasons = [
  'final_answer',
  'max_turns',
  'deadline',
  'repeat_guard',
  'agent_waiting',
  'cancelled',
  'context_overflow',
  'model_error',
  'stop_condition',
  // Not the loop's own: a plan-and-execute run (orchestrator) that failed past its replans.
  'plan_failed',
] as const;
export type StopReason = (typeof StopReasons)[number];

/** One tool call of the turn, for analytics and display. */
export interface ToolCallRecord {
  callId: string;
  name: string;
  /** Arguments with long values cut, for debugging (not the full payload). */
  argumentsSummary: Record<string, unknown>;
  durationMs: number;
  success: boolean;
  status: ToolResultStatus;
  errorCode?: string;
  synthetic: boolean;
  /** Size of the result before any truncation, in characters. */
  resultChars: number;
  /** Tokens of the model turn that requested this call. */
  turnUsage: TokenUsage;
  iteration: number;
}

/** What one iteration did: the request view, the model output, the tool outcomes. */
export interface IterationRecord {
  iteration: number;
  view: { messages: number; estimatedTokens: number; stage: string; diagnostics: ViewDiagnostic[] };
  model: { provider: string; model: string; finishReason: string; retries: number; fallbackUsed: boolean };
  output: AssistantMessage;
  tools: Array<{ callId: string; name: string; status: ToolResultStatus; durationMs: number; synthetic: boolean }>;
  usage: TokenUsage;
  durationMs: number;
  /** Text of the model's message or of tool results that had to be repaired to be kept (absent when none). */
  textRepairs?: TextRepair[];
}

export interface LoopResult {
  runId: string;
  response: string;
  stopReason: StopReason;
  /** Model calls made (including a forced final-answer call). */
  turns: number;
  usage: TokenUsage;
  durationMs: number;
  /** Agent-tools waiting for the user when the loop stopped. */
  pendingAgents: PendingAgent[];
  toolCalls: ToolCallRecord[];
  /** The raw messages this turn produced, in order (to append to history as they are). */
  messages: ChatMessage[];
  transcript: IterationRecord[];
  /** Set when the loop stopped on an error. */
  error?: { kind: string; message: string };
}
