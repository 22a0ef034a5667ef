import { all, create, type MathNode } from 'mathjs';
import { NamedError } from '@platform/contracts';

/** Functions and constants an expression may use; everything else in mathjs is out of reach. */
const ALLOWED_FUNCTIONS = new Set([
  'abs',
  'ceil',
  'floor',
  'round',
  'sqrt',
  'cbrt',
  'pow',
  'exp',
  'log',
  'log10',
  'log2',
  'min',
  'max',
  'mod',
  'sin',
  'cos',
  'tan',
]);
const ALLOWED_CONSTANTS = new Set(['pi', 'e']);
const ALLOWED_OPERATORS = new Set(['add', 'subtract', 'multiply', 'divide', 'unaryMinus', 'unaryPlus', 'pow', 'mod']);

export class ExpressionError extends NamedError {}

/**
 * Evaluates an arithmetic expression without `eval`: mathjs parses it into a tree, every node is
 * checked against an allowlist (numbers, + - * / ^ %, parentheses, a few functions and constants),
 * and only then is the tree evaluated. Assignments, variables, matrices, units and imports are refused.
 */
export class ArithmeticEvaluator {
  private readonly math = create(all ?? {}, { number: 'number' });

  constructor(private readonly maxLength: number) {}

  evaluate(expression: string): number {
    if (expression.length > this.maxLength)
      throw new ExpressionError(`expression is longer than ${this.maxLength} characters`);
    let tree: MathNode;
    try {
      tree = this.math.parse(expression);
    } catch (err) {
      throw new ExpressionError(`cannot parse the expression: ${(err as Error).message}`);
    }
    tree.traverse((node, _path, parent) => this.check(node, parent));
    const value: unknown = tree.evaluate();
    if (typeof value !== 'number') throw new ExpressionError('the expression does not evaluate to a single number');
    if (!Number.isFinite(value))
      throw new ExpressionError('the result is not a finite number (division by zero or overflow)');
    return value;
  }

  private check(node: MathNode, parent: MathNode | null): void {
    switch (node.type) {
      case 'ConstantNode':
        if (typeof (node as MathNode & { value: unknown }).value !== 'number')
          throw new ExpressionError('only numbers are allowed as literals');
        return;
      case 'ParenthesisNode':
        return;
      case 'OperatorNode': {
        const fn = (node as MathNode & { fn: string }).fn;
        if (!ALLOWED_OPERATORS.has(fn))
          throw new ExpressionError(`operator '${(node as MathNode & { op: string }).op}' is not allowed`);
        return;
      }
      case 'FunctionNode': {
        const name = (node as MathNode & { fn: { name?: string } }).fn.name ?? '';
        if (!ALLOWED_FUNCTIONS.has(name)) throw new ExpressionError(`function '${name}' is not allowed`);
        return;
      }
      case 'SymbolNode': {
        const name = (node as MathNode & { name: string }).name;
        const isCalledFunction = parent?.type === 'FunctionNode' && (parent as MathNode & { fn: MathNode }).fn === node;
        if (isCalledFunction ? ALLOWED_FUNCTIONS.has(name) : ALLOWED_CONSTANTS.has(name)) return;
        throw new ExpressionError(`unknown name '${name}'`);
      }
      default:
        throw new ExpressionError(`${node.type.replace(/Node$/, '').toLowerCase()} expressions are not allowed`);
    }
  }
}
