import type { AssistantMessage, ChatMessage, ToolResultStatus } from '@platform/contracts';
import type { StepFailure } from './failures.js';
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
  // The answer failed the caller's check (hooks.checkAnswer) after its retries: e.g. not valid
  // against the run's output schema.
  'invalid_output',
  // Not the loop's own: a plan-and-execute run (orchestrator) that failed past its replans.
  'plan_failed',
  // A newer message interrupted the run (RunControl.interrupt): it stopped at a step boundary,
  // every tool call answered, and what it completed stays in history.
  'interrupted',
  // Not the loop's own: a newer message rolled the run back (orchestrator); nothing of it is kept.
  'rolled_back',
  // Not the loop's own: the message joined its conversation's run in flight (orchestrator,
  // `steer`) and is answered by that run.
  'steered',
] as const;
export type StopReason = (typeof StopReasons)[number];

/** What was wrong with an answer (hooks.checkAnswer): where (a JSON pointer, "" = the whole answer) and what. */
export interface AnswerIssue {
  path: string;
  message: string;
}

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
  /** The call's failures, classified (failures.ts): recovered ones first, then its own (absent when none). */
  failures?: StepFailure[];
}

/** What one iteration did: the request view, the model output, the tool outcomes. */
export interface IterationRecord {
  iteration: number;
  view: { messages: number; estimatedTokens: number; stage: string; diagnostics: ViewDiagnostic[] };
  /** `failures`: the failed calls of the model before this one answered, or the reply's own (absent when none). */
  model: {
    provider: string;
    model: string;
    finishReason: string;
    retries: number;
    fallbackUsed: boolean;
    failures?: StepFailure[];
  };
  output: AssistantMessage;
  tools: Array<{
    callId: string;
    name: string;
    status: ToolResultStatus;
    durationMs: number;
    synthetic: boolean;
    failures?: StepFailure[];
  }>;
  usage: TokenUsage;
  durationMs: number;
  /** Text of the model's message or of tool results that had to be repaired to be kept (absent when none). */
  textRepairs?: TextRepair[];
  /**
   * Set when the answer was checked (hooks.checkAnswer) and refused: `retry` (the model was told
   * why and asked again) or `rejected` (the run stopped with `invalid_output`).
   */
  answerCheck?: { verdict: 'retry' | 'rejected'; issues: AnswerIssue[] };
  /** Set on the model calls of a plan-and-execute run (orchestrator): the planner's and the synthesis. */
  plan?: PlanCallNote;
}

/**
 * How a plan-and-execute run asked its planner for the plan: `json_schema` (structured output),
 * `text` (JSON in text: the profile's models have no structured output), `text_fallback` (the
 * provider refused the structured output, so the plan was asked for in text).
 */
export type PlanOutputMode = 'json_schema' | 'text' | 'text_fallback';

/** What a model call of a plan-and-execute run was for. */
export interface PlanCallNote {
  call: 'planner' | 'synthesis';
  planVersion: number;
  /** The planner's only. */
  outputMode?: PlanOutputMode;
}

/**
 * A transcript entry of a plan-and-execute run that is not a model call: a subtask (with the
 * child runs that did it) or a replan (why the plan was made again).
 */
type PlanStepRecord =
  | {
      step: 'subtask';
      planVersion: number;
      subtaskId: string;
      role: string;
      status: 'pending' | 'blocked' | 'executing' | 'completed' | 'failed' | 'skipped';
      attempts: number;
      /** The child run of each attempt, oldest first: `GET /v1/runs/{id}` reads each. */
      childRunIds: string[];
      /** Where its result went in the shared context. */
      resultKey: string;
      error?: string;
    }
  | { step: 'replan'; planVersion: number; reason: string; failureKind?: string };

/** One entry of a run's transcript: a model call of the loop (or of a plan), or a step of a plan. */
export type TranscriptEntry = IterationRecord | PlanStepRecord;

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
  transcript: TranscriptEntry[];
  /**
   * The answer as the caller's check read it (hooks.checkAnswer accepted it with a value): e.g.
   * the JSON value valid against the run's output schema. Absent without a check.
   */
  output?: unknown;
  /**
   * Set when the loop stopped on an error; `failure` classifies it (failures.ts) when it is one,
   * `issues` says what was wrong with a refused answer (`invalid_output`).
   */
  error?: { kind: string; message: string; failure?: StepFailure; issues?: AnswerIssue[] };
}

/** What the ReAct loop returns: its transcript is made of model calls only. */
export type AgentLoopResult = LoopResult & { transcript: IterationRecord[] };
