// The calculator turn every bench runs: the model (llm-sim's `calculator` scenario) asks for
// `calculator` with EXPRESSION, the tool computes it, and the model's answer quotes the tool's
// `result` (llm-sim fills it in from the tool message it was sent).
import { all, create } from 'mathjs';

export const CALCULATOR_PROMPT = '[scenario:calculator] What is 12 * (3 + 4)?';
export const CALCULATOR_EXPRESSION = '12 * (3 + 4)';
export const CALCULATOR_RESULT = 84;
export const CALCULATOR_INSTRUCTIONS = 'You are a helpful assistant. Use the calculator for arithmetic.';
export const CALCULATOR_DESCRIPTION = 'Evaluates an arithmetic expression exactly, e.g. "(17 + 25) * 3".';
/** The model name llm-sim answers to. */
export const SIM_MODEL = 'sim-1';

const math = create(all ?? {}, { number: 'number' });

/** The calculator of every bench's own tool: the same work (mathjs) and output shape as the platform's tool. */
export function calculate(expression: string): { expression: string; result: number } {
  const value: unknown = math.evaluate(expression);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`'${expression}' is not a finite number`);
  return { expression, result: value };
}
