// The one turn every peer runs, and the check that it really ran: the model (llm-sim's
// `calculator` scenario) asks for `calculator` with EXPRESSION, the tool computes it, and the
// model's answer quotes the tool's `result` (llm-sim fills it in from the tool message, so an answer
// holding it proves the tool's output reached the model).
import {
  calculate,
  CALCULATOR_DESCRIPTION,
  CALCULATOR_EXPRESSION,
  CALCULATOR_INSTRUCTIONS,
  CALCULATOR_PROMPT,
  CALCULATOR_RESULT,
  SIM_MODEL,
} from '@platform/bench-kit';

export { CALCULATOR_DESCRIPTION };
export const PROMPT = CALCULATOR_PROMPT;
const EXPRESSION = CALCULATOR_EXPRESSION;
export const RESULT = CALCULATOR_RESULT;
export const INSTRUCTIONS = CALCULATOR_INSTRUCTIONS;
export const MODEL = SIM_MODEL;

/** The calls one turn's tool received (each peer hands it to its tool through the run's context). */
export class CallLog {
  readonly calls: unknown[] = [];

  /** The tool's body: records the arguments it was given, then computes. */
  run(args: unknown): { expression: string; result: number } {
    this.calls.push(args);
    const expression = (args as { expression?: unknown } | null)?.expression;
    if (typeof expression !== 'string') throw new Error(`calculator got no expression: ${JSON.stringify(args)}`);
    return calculate(expression);
  }
}

/** Thrown when a turn did not do what the scenario scripts. */
class TurnCheckError extends Error {
  override readonly name = 'TurnCheckError';
}

/** Throws unless the tool ran exactly once with EXPRESSION and the answer quotes RESULT. */
export function verifyTurn(peer: string, log: CallLog, answer: unknown): void {
  if (log.calls.length !== 1)
    throw new TurnCheckError(`${peer}: the tool ran ${log.calls.length} times (expected once)`);
  const args = log.calls[0] as { expression?: unknown } | null;
  if (args?.expression !== EXPRESSION)
    throw new TurnCheckError(`${peer}: the tool got ${JSON.stringify(args)} (expected expression '${EXPRESSION}')`);
  verifyAnswer(peer, answer);
}

/** Throws unless the final answer quotes the tool's result. */
function verifyAnswer(peer: string, answer: unknown): void {
  if (typeof answer !== 'string' || !answer.includes(`= ${RESULT}`))
    throw new TurnCheckError(`${peer}: unexpected answer ${JSON.stringify(answer)?.slice(0, 200)}`);
}
