import { RE2JS } from 're2js';
import { FilterError, FilterErrorCodes, type FilterLimits } from './filter-errors.js';

/**
 * A filter's regular expression, compiled by RE2 (re2js, a JavaScript port of RE2): matching
 * runs in time linear in the input (at most the program size times the input length), whatever
 * the pattern, so no pattern can freeze the service the way a backtracking engine's `(a+)+$` does.
 * Not re2-wasm: its WebAssembly heap is fixed at 16 MiB and never freed (no delete of compiled
 * patterns), and one 14-character pattern (`\p{L}{1000}`) aborts the module, after which every
 * match of every tenant fails until the process restarts. re2js lives on the JavaScript heap.
 */
export interface FilterRegex {
  readonly pattern: string;
  /** Instructions of the compiled program: with the input length, the bound on one match's work. */
  readonly programSize: number;
  test(input: string): boolean;
}

function programSizeOf(compiled: RE2JS): number {
  return (compiled.re2() as unknown as { prog: { numInst(): number } }).prog.numInst();
}

/** Compiles a pattern in RE2 syntax (`(?i)` and the other inline flags work); refuses what the limits do not allow. */
export function compileFilterRegex(pattern: string, limits: FilterLimits): FilterRegex {
  if (pattern.length > limits.maxPatternChars) {
    throw new FilterError(
      FilterErrorCodes.patternTooLarge,
      `the pattern "${pattern.slice(0, 40)}…" is longer than ${limits.maxPatternChars} characters`,
    );
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (err) {
    throw new FilterError(
      FilterErrorCodes.invalidPattern,
      `"${pattern}" is not a valid RE2 pattern: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const programSize = programSizeOf(compiled);
  if (programSize > limits.maxPatternProgram) {
    throw new FilterError(
      FilterErrorCodes.patternTooLarge,
      `the pattern "${pattern.slice(0, 40)}" compiles to ${programSize} instructions, more than ${limits.maxPatternProgram}`,
    );
  }
  return {
    pattern,
    programSize,
    test: (input) => {
      if (input.length > limits.maxInputChars) {
        throw new FilterError(
          FilterErrorCodes.inputTooLong,
          `the text matched by ~= "${pattern.slice(0, 40)}" is ${input.length} characters, more than ${limits.maxInputChars}`,
        );
      }
      return compiled.test(input);
    },
  };
}
