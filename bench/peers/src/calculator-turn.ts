// The one turn every peer runs, and the check that it really ran: the model (llm-sim's
// `calculator` scenario) asks for `calculator` with EXPRESSION, the tool computes it, and the
// model's answer quotes the tool's `result` (llm-sim fills it in from the tool message, so an answer
// holding it proves the tool's output reached the model).
import { create, all } from 'mathjs';

export const PROMPT = '[scenario:calculator] What is 12 * (3 + 4)?';
export const EXPRESSION = '12 * (3 + 4)';
export const RESULT = 84;
export const INSTRUCTIONS = 'You are a helpful assistant. Use the calculator for arithmetic.';
export const CALCULATOR_DESCRIPTION = 'Evaluates an arithmetic expression exactly, e.g. "(17 + 25) * 3".';
export const MODEL = 'sim-1';

const math = create(all ?? {}, { number: 'number' });

/** The calculator every in-process peer runs: the same work (mathjs) and output shape as the platform's tool. */
export function calculate(expression: string): { expression: string; result: number } {
  const value: unknown = math.evaluate(expression);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`'${expression}' is not a finite number`);
  return { expression, result: value };
}

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
export class TurnCheckError extends Error {
  override readonly name = 'TurnCheckError';
}

/** Throws unless the tool ran exactly once with EXPRESSION and the answer quotes RESULT. */
export function verifyTurn(peer: string, log: CallLog, answer: unknown): void {
  if (log.calls.length !== 1) throw new TurnCheckError(`${peer}: the tool ran ${log.calls.length} times (expected once)`);
  const args = log.calls[0] as { expression?: unknown } | null;
  if (args?.expression !== EXPRESSION) throw new TurnCheckError(`${peer}: the tool got ${JSON.stringify(args)} (expected expression '${EXPRESSION}')`);
  verifyAnswer(peer, answer);
}

/** Throws unless the final answer quotes the tool's result. */
export function verifyAnswer(peer: string, answer: unknown): void {
  if (typeof answer !== 'string' || !answer.includes(`= ${RESULT}`)) throw new TurnCheckError(`${peer}: unexpected answer ${JSON.stringify(answer)?.slice(0, 200)}`);
}
