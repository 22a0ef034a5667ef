import { defineTool, ToolFailure, type ToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';
import { ArithmeticEvaluator, ExpressionError } from './arithmetic.js';

export interface CalculatorSettings {
  maxExpressionLength: number;
}

/** `calculator`: evaluates an arithmetic expression safely (see ArithmeticEvaluator). */
export function calculatorTool(settings: CalculatorSettings): ToolDefinition {
  const evaluator = new ArithmeticEvaluator(settings.maxExpressionLength);
  return defineTool({
    name: 'calculator',
    description:
      'Evaluates an arithmetic expression exactly. Supports + - * / ^ %, parentheses, and abs, ceil, floor, round, sqrt, cbrt, pow, exp, log, log10, log2, min, max, mod, sin, cos, tan, pi, e. Use it for any arithmetic instead of computing in your head.',
    input: z.object({
      expression: z.string().min(1).describe('The expression, e.g. "(17 + 25) * 3" or "sqrt(2) * pi"'),
    }),
    output: z.object({ expression: z.string(), result: z.number() }),
    timeoutMs: 5_000,
    sideEffect: 'none',
    version: '1.0.0',
    handler: async ({ expression }) => {
      try {
        return { expression, result: evaluator.evaluate(expression) };
      } catch (err) {
        if (err instanceof ExpressionError) throw new ToolFailure(err.message, 'invalid');
        throw err;
      }
    },
  });
}
