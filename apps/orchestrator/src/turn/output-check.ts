import { allowsStrictMode, type AnswerVerdict, type JsonSchemaResponseFormat } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { answerVerdict } from '../structured/answer-verdict.js';
import type { CompiledOutputSchema, OutputSchemas } from '../structured/output-schemas.js';
import type { PreparedTurn } from './context.js';
import { syntheticResult, TurnResult, type TurnStep } from './turn-steps.js';

/** How a turn's answer must look: what the loop asks the model for, and its check of the final answer. */
interface AnswerContract {
  /** Structured output, when the profile's models have it; absent = the schema is in the instructions. */
  responseFormat?: JsonSchemaResponseFormat;
  /** With responseFormat: the schema as an instruction, for a provider that refuses structured output at run time. */
  textFallback?: string;
  check(context: { content: string; refused: number }): Promise<AnswerVerdict>;
}

/** The output check step's output: the prepared turn, with its answer's contract when it has an output schema. */
export interface CheckedTurn extends PreparedTurn {
  answer?: AnswerContract;
}

export interface OutputCheckStepOptions {
  schemas: OutputSchemas;
  /** Answers refused before the run stops with `invalid_output` (1: one retry with the errors). */
  retries: number;
  logger: Logger;
}

/** The name structured output sends the schema under (OpenAI: 1-64 of [a-zA-Z0-9_-]). */
const SCHEMA_NAME = 'output';

/** What the model is told when its models have no structured output: the schema, in the instructions. */
export function schemaInstruction(schema: Record<string, unknown>): string {
  return [
    'Answer with one JSON value and nothing else (no prose; a single ```json fenced block is accepted) that is valid against this JSON Schema:',
    '```json',
    JSON.stringify(schema, null, 2),
    '```',
  ].join('\n');
}

/**
 * The output check step: a run with an output schema (its message's, else its profile's; kept on
 * the run, so a resumed turn checks against the same one) asks the model for structured output
 * where the profile's models have it (`structuredOutput`), else puts the schema in the first
 * attempt's instructions (a resumed run's journaled input has them already). The loop then
 * checks each final answer here: JSON (a ```json fence allowed) valid against the schema is the
 * run's `output`; otherwise the model is told the errors and asked again, `retries` times, and
 * then the run stops with `invalid_output` and the errors.
 */
export class OutputCheckStep implements TurnStep<PreparedTurn, CheckedTurn | TurnResult> {
  readonly name = 'output-check';

  constructor(private readonly options: OutputCheckStepOptions) {}

  async run(turn: PreparedTurn): Promise<CheckedTurn | TurnResult> {
    const { run } = turn.attempt;
    const schema = run.outputSchema ?? turn.profile.outputSchema;
    if (!schema) return turn;
    let compiled: CompiledOutputSchema;
    try {
      compiled = this.options.schemas.compile(schema);
    } catch (err) {
      // Checked when the message or the profile was accepted: only a stricter compiler since (an
      // upgrade) refuses it now. The run ends saying so rather than answer unchecked.
      const message = `the run's output schema no longer compiles: ${(err as Error).message}`;
      this.options.logger.error(
        { runId: run.runId, err: message },
        'refusing to run a turn whose output schema does not compile',
      );
      return new TurnResult(
        turn.attempt,
        syntheticResult(run.runId, 'invalid_output', message, { kind: 'output_schema', message }),
      );
    }
    const check = (context: { content: string; refused: number }): Promise<AnswerVerdict> =>
      Promise.resolve(answerVerdict(compiled, this.options.retries, context));
    if (turn.profile.structuredOutput)
      return {
        ...turn,
        answer: {
          responseFormat: { type: 'json_schema', name: SCHEMA_NAME, schema, strict: strictAllowed(schema) },
          textFallback: schemaInstruction(schema),
          check,
        },
      };
    const input = run.input ? turn.input : withInstruction(turn.input, schemaInstruction(schema));
    return { ...turn, input, answer: { check } };
  }
}

/** OpenAI's strict mode holds only object roots whose every object is closed with every property required. */
function strictAllowed(schema: Record<string, unknown>): boolean {
  return schema['type'] === 'object' && allowsStrictMode(schema);
}

/** The input with the instruction added to its first system message (or as one, first). */
function withInstruction(input: readonly ChatMessage[], instruction: string): ChatMessage[] {
  const [first, ...rest] = input;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...rest];
  return [{ role: 'system', content: instruction }, ...input];
}
