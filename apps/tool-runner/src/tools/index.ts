import type { ToolDefinition } from '@platform/tool-sdk';
import type { RunnerConfig } from '../config.js';
import { calculatorTool } from './calculator.js';
import { currentTimeTool } from './current-time.js';

/** The tools this runner serves, configured from its environment. */
export function builtinTools(config: RunnerConfig): ToolDefinition[] {
  return [calculatorTool({ maxExpressionLength: config.CALCULATOR_MAX_EXPRESSION_LENGTH }), currentTimeTool()];
}
