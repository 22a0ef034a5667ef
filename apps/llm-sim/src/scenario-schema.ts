import { z } from 'zod';
import { stringsIn, unknownTemplates } from './templates.js';

/** Scenario names appear in `[scenario:<name>]` markers and as file names, so keep them plain. */
export const SCENARIO_NAME = /^[A-Za-z0-9._-]+$/;

/** The OpenAI error kinds a step can inject. */
export const FAULT_KINDS = ['rate_limit', 'context_length_exceeded', 'auth', 'server_error', 'bad_request'] as const;

const FaultSchema = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  times: z.union([z.number().int().positive(), z.literal('always')]).default(1),
  retryAfterSeconds: z.number().nonnegative().optional(),
  message: z.string().min(1).optional(),
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
    finishReason: z.enum(['stop', 'length', 'content_filter']).optional(),
    delayMs: z.number().int().nonnegative().optional(),
    chunkDelayMs: z.number().int().nonnegative().optional(),
    fault: FaultSchema.optional(),
  })
  .refine((s) => s.content !== undefined || s.toolCalls !== undefined || s.fault?.times === 'always', {
    message: 'a step needs "content", "toolCalls", or a fault with times "always" (nothing to answer once the fault stops)',
  });

/** A scripted model: the replies served, step by step, within one user turn. */
export const ScenarioSchema = z
  .strictObject({
    /** Optional editor hint; ignored. */
    $schema: z.string().optional(),
    name: z.string().regex(SCENARIO_NAME, 'must contain only letters, digits, ".", "_" and "-"'),
    description: z.string().optional(),
    contextWindowTokens: z.number().int().positive().optional(),
    whenExhausted: z.enum(['repeat-last', 'error']).default('repeat-last'),
    onToolsDisabled: z.string().optional(),
    steps: z.array(StepSchema).min(1),
  })
  .superRefine((scenario, ctx) => {
    const check = (text: string, path: (string | number)[]) => {
      for (const bad of unknownTemplates(text)) {
        ctx.addIssue({ code: 'custom', path, message: `unknown template ${bad}` });
      }
    };
    if (scenario.onToolsDisabled !== undefined) check(scenario.onToolsDisabled, ['onToolsDisabled']);
    scenario.steps.forEach((step, i) => {
      if (step.content !== undefined) check(step.content, ['steps', i, 'content']);
      step.toolCalls?.forEach((call, j) => {
        // Raw-string arguments are sent verbatim, so only object arguments are templated.
        if (typeof call.arguments === 'string') return;
        for (const text of stringsIn(call.arguments)) check(text, ['steps', i, 'toolCalls', j, 'arguments']);
      });
    });
  });

/** A validated scenario (defaults applied). */
export type Scenario = z.infer<typeof ScenarioSchema>;
/** A scenario as written in a file or passed programmatically (defaults optional). */
export type ScenarioInput = z.input<typeof ScenarioSchema>;
/** One validated step. */
export type ScenarioStep = Scenario['steps'][number];
/** One validated fault. */
export type FaultSpec = NonNullable<ScenarioStep['fault']>;
/** One of {@link FAULT_KINDS}. */
export type FaultKind = FaultSpec['kind'];
/** One validated scripted tool call. */
export type ToolCallSpec = NonNullable<ScenarioStep['toolCalls']>[number];
