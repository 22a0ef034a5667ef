import { z } from 'zod';
import { AgentLoopError } from './agent-loop-error.js';

/**
 * Every tunable of the loop, in one place, with its default. Nothing else in the engine holds a
 * number that changes behaviour. Defaults follow the design (max 10 turns, 30 s tools, 120 s
 * agent-tools, 30% of the context per tool result, 400,000-char hard cap, 128k-token context,
 * trim at 80%, keep 40 messages, 2 model retries from a 1 s base delay).
 */
export const LoopConfigSchema = z.object({
  /** Model calls per turn before the loop forces a final answer. */
  maxTurns: z.number().int().positive().default(10),
  /** Wall-clock budget of a whole turn; no model call or tool call outlives it. */
  turnDeadlineMs: z.number().int().positive().default(120_000),
  /** Timeout of a regular tool call (a runner may publish a shorter one). */
  toolTimeoutMs: z.number().int().positive().default(30_000),
  /** Timeout of an agent-tool call: longer, since agents validate fields and call out. */
  agentToolTimeoutMs: z.number().int().positive().default(120_000),
  /** Calls one model response may request; the rest get a `blocked` result. */
  maxToolCallsPerIteration: z.number().int().positive().default(16),
  /** Calls one turn may make in total; the rest get a `blocked` result. */
  maxToolCallsPerTurn: z.number().int().positive().default(64),
  /** How often the same tool may run with the same arguments in one turn; further repeats are `skipped`. */
  repeatGuardThreshold: z.number().int().positive().default(2),
  /** Share of the context window one tool result may take in a request. */
  maxToolResultShare: z.number().gt(0).max(1).default(0.3),
  /** Hard cap on one tool result in a request, in characters. */
  maxToolResultChars: z.number().int().positive().default(400_000),
  /** A truncated tool result keeps at least this many leading characters. */
  minToolResultHeadChars: z.number().int().nonnegative().default(2_000),
  /** Per-result budget when the overflow chain truncates every tool result. */
  overflowToolResultChars: z.number().int().positive().default(8_000),
  /** The model's context window, in tokens. */
  contextTokenLimit: z.number().int().positive().default(128_000),
  /** Trim history once the estimate passes this share of the context window. */
  contextTrimThreshold: z.number().gt(0).max(1).default(0.8),
  /** Non-system messages kept by a trim. */
  maxHistoryMessages: z.number().int().positive().default(40),
  /** Non-system messages kept by a force trim (last step of the overflow chain). */
  forceTrimMessages: z.number().int().positive().default(5),
  /** Characters per token for estimates (no tokenizer dependency). */
  charsPerToken: z.number().positive().default(4),
  /** Retries of a failed model call (rate limits, server errors); timeouts retry once. */
  llmMaxRetries: z.number().int().nonnegative().default(2),
  /** Base of the exponential backoff between model retries. */
  llmRetryBaseDelayMs: z.number().int().nonnegative().default(1_000),
  /** Longest wait between model retries, whatever a retry-after header asks. */
  llmRetryMaxDelayMs: z.number().int().positive().default(30_000),
  /**
   * Share of each backoff drawn at random (0: none): a wait is between `1 - jitter` and all of the
   * exponential delay, so runs that failed together (one rate limit for many) do not retry together.
   */
  llmRetryJitter: z.number().min(0).max(1).default(0.5),
  /** Largest argument value kept in a tool call record (the summary, not the call). */
  argumentSummaryChars: z.number().int().positive().default(200),
  /** Sent (in the request view only) with the last, tool-less call after the turn limit. */
  finalAnswerInstruction: z
    .string()
    .default(
      'You have used all the steps available for this request. Answer now, from the information gathered so far, without calling tools.',
    ),
});

export type LoopConfig = z.infer<typeof LoopConfigSchema>;
export type LoopConfigInput = z.input<typeof LoopConfigSchema>;

class LoopConfigError extends AgentLoopError {
  readonly code = 'LOOP_CONFIG_INVALID';
  constructor(readonly problems: Array<{ option: string; message: string }>) {
    super(`invalid loop configuration: ${problems.map((p) => `${p.option}: ${p.message}`).join('; ')}`);
  }
}

/** Applies defaults and checks every option; the error names each option at fault. */
export function compileLoopConfig(input: LoopConfigInput = {}): LoopConfig {
  const result = LoopConfigSchema.safeParse(input);
  if (result.success) return result.data;
  throw new LoopConfigError(
    result.error.issues.map((i) => ({ option: i.path.join('.') || '(config)', message: i.message })),
  );
}

export const DEFAULT_LOOP_CONFIG: LoopConfig = Object.freeze(compileLoopConfig());
