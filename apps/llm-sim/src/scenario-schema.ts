import { z } from 'zod';
import { LatencyDistribution } from './latency-distribution.js';
import { TokensPerSecond } from './latency-setting.js';
import { stringsIn, unknownTemplates } from './templates.js';

/** Scenario names appear in `[scenario:<name>]` markers and as file names, so keep them plain. */
const SCENARIO_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * The faults a step can inject: OpenAI errors, or `stream_cut`, a connection that breaks after
 * `afterChunks` chunks of a streamed answer (before any answer when not streaming).
 * `response_format_unsupported` answers only requests asking for structured output
 * (`response_format: json_schema`) with OpenAI's 400 for a model without it; others pass.
 */
export const FAULT_KINDS = [
  'rate_limit',
  'context_length_exceeded',
  'auth',
  'server_error',
  'bad_request',
  'response_format_unsupported',
  'stream_cut',
] as const;

const FaultSchema = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  times: z.union([z.number().int().positive(), z.literal('always')]).default(1),
  retryAfterSeconds: z.number().nonnegative().optional(),
  message: z.string().min(1).optional(),
  /** `stream_cut` only: chunks written before the connection breaks (the role chunk counts). */
  afterChunks: z.number().int().nonnegative().optional(),
});

const ToolCallSchema = z.strictObject({
  name: z.string().min(1),
  // An object is serialised with JSON.stringify; a string goes out verbatim (e.g. deliberately broken JSON).
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
  id: z.string().min(1).optional(),
});

const StepSchema = z
  .strictObject({
    description: z.string().optional(),
    content: z.string().optional(),
    toolCalls: z.array(ToolCallSchema).min(1).optional(),
    /**
     * Read the user's text instead of following a script: call `calculator` for its arithmetic and
     * `current_time` for the times it asks, then answer from the results; otherwise say honestly
     * that the simulator cannot answer (understood-reply.ts).
     */
    understandsUser: z.boolean().optional(),
    finishReason: z.enum(['stop', 'length', 'content_filter']).optional(),
    delayMs: z.number().int().nonnegative().optional(),
    chunkDelayMs: z.number().int().nonnegative().optional(),
    fault: FaultSchema.optional(),
  })
  .refine(
    (s) =>
      s.content !== undefined || s.toolCalls !== undefined || s.understandsUser === true || s.fault?.times === 'always',
    {
      message:
        'a step needs "content", "toolCalls", "understandsUser", or a fault with times "always" (nothing to answer once the fault stops)',
    },
  );

const TurnSchema = z.strictObject({
  description: z.string().optional(),
  steps: z.array(StepSchema).min(1),
});

const ToolReplySchema = z.strictObject({
  description: z.string().optional(),
  // Same rules as a step's tool call: an object is templated, a string goes out verbatim.
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
  id: z.string().min(1).optional(),
});

/**
 * A scripted model: the replies served, step by step, within one user turn (`steps`), or per turn
 * of a multi-turn conversation (`turns`); plus `toolReplies` for side requests that force a tool.
 */
export const ScenarioSchema = z
  .strictObject({
    /** Optional editor hint; ignored. */
    $schema: z.string().optional(),
    name: z.string().regex(SCENARIO_NAME, 'must contain only letters, digits, ".", "_" and "-"'),
    description: z.string().optional(),
    contextWindowTokens: z.number().int().positive().optional(),
    /** A delay drawn per call from this distribution, in place of the global one (`PUT /_sim/latency`). */
    latency: LatencyDistribution.optional(),
    /** The pace of this scenario's streamed answers, in place of the global one; a step's `chunkDelayMs` wins. */
    tokensPerSecond: TokensPerSecond.optional(),
    whenExhausted: z.enum(['repeat-last', 'error']).default('repeat-last'),
    onToolsDisabled: z.string().optional(),
    /** The steps of every turn (a single-turn scenario). Exactly one of `steps` and `turns`. */
    steps: z.array(StepSchema).min(1).optional(),
    /** The steps of turn 0, 1, ... (a multi-turn scenario). Exactly one of `steps` and `turns`. */
    turns: z.array(TurnSchema).min(1).optional(),
    /** Fixed answers to requests that force one of these tools (see `matchToolReply`). */
    toolReplies: z.record(z.string().min(1), ToolReplySchema).optional(),
  })
  .superRefine((scenario, ctx) => {
    const check = (text: string, path: (string | number)[]) => {
      for (const bad of unknownTemplates(text)) {
        ctx.addIssue({ code: 'custom', path, message: `unknown template ${bad}` });
      }
    };
    const checkArguments = (args: Record<string, unknown> | string, path: (string | number)[]) => {
      // Raw-string arguments are sent verbatim, so only object arguments are templated.
      if (typeof args === 'string') return;
      for (const text of stringsIn(args)) check(text, path);
    };
    const checkSteps = (steps: readonly ScenarioStep[], path: (string | number)[]) => {
      steps.forEach((step, i) => {
        if (step.content !== undefined) check(step.content, [...path, i, 'content']);
        step.toolCalls?.forEach((call, j) => checkArguments(call.arguments, [...path, i, 'toolCalls', j, 'arguments']));
      });
    };
    if ((scenario.steps === undefined) === (scenario.turns === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['steps'], message: 'a scenario needs exactly one of "steps" and "turns"' });
    }
    if (scenario.onToolsDisabled !== undefined) check(scenario.onToolsDisabled, ['onToolsDisabled']);
    if (scenario.steps) checkSteps(scenario.steps, ['steps']);
    scenario.turns?.forEach((turn, t) => checkSteps(turn.steps, ['turns', t, 'steps']));
    for (const [tool, reply] of Object.entries(scenario.toolReplies ?? {})) {
      checkArguments(reply.arguments, ['toolReplies', tool, 'arguments']);
    }
  });

/** A validated scenario (defaults applied). */
export type Scenario = z.infer<typeof ScenarioSchema>;
/** A scenario as written in a file or passed programmatically (defaults optional). */
export type ScenarioInput = z.input<typeof ScenarioSchema>;
/** One validated step. */
export type ScenarioStep = z.infer<typeof StepSchema>;
/** One validated turn of a multi-turn scenario. */
export type ScenarioTurn = z.infer<typeof TurnSchema>;
/** One validated entry of `toolReplies`. */
export type ToolReplySpec = z.infer<typeof ToolReplySchema>;
/** One validated fault. */
export type FaultSpec = NonNullable<ScenarioStep['fault']>;
/** One of {@link FAULT_KINDS}. */
export type FaultKind = FaultSpec['kind'];

/**
 * The turns of a scenario: its `turns`, or its `steps` as the one turn (which every later turn
 * then reuses, since a turn index past the last turn maps onto the last turn).
 */
export function scenarioTurns(scenario: Scenario): readonly ScenarioTurn[] {
  return scenario.turns ?? [{ steps: scenario.steps ?? [] }];
}
