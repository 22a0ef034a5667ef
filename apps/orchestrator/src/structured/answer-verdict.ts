import type { AnswerVerdict } from '@platform/agent-loop';
import { readAnswerJson } from './answer-json.js';
import type { CompiledOutputSchema } from './output-schemas.js';

/** What the model is told of an answer that did not validate, so it can answer again. */
function feedbackOf(issues: readonly { message: string }[]): string {
  return [
    'Your answer is not valid against the JSON Schema this request requires:',
    ...issues.map((i) => `- ${i.message}`),
    'Answer again with one JSON value (and nothing else) that is valid against the schema.',
  ].join('\n');
}

/**
 * The verdict on a final answer of a run with an output schema: JSON (the whole text, or one
 * ```json fenced block) valid against the schema is accepted as the run's `output`; anything else
 * is refused with the validation errors, to be asked again while `refused < retries`.
 */
export function answerVerdict(
  schema: CompiledOutputSchema,
  retries: number,
  { content, refused }: { content: string; refused: number },
): AnswerVerdict {
  const read = readAnswerJson(content);
  const issues = read.ok ? schema.issuesOf(read.value) : [{ path: '', message: read.message }];
  if (read.ok && issues.length === 0) return { accept: true, output: read.value };
  return { accept: false, retry: refused < retries, feedback: feedbackOf(issues), issues };
}
