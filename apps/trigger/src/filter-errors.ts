import { NamedError } from '@platform/contracts';
import type { filterErrorCatalogue } from './error-codes.js';

/**
 * Why a filter (or condition) expression cannot be compiled, or why one evaluation failed. The
 * code is stable: creation problems reach the client in INVALID_TASK_SPEC's message and issues,
 * evaluation problems are recorded as the task's `lastError` (docs/triggers.md).
 */
export const FilterErrorCodes = {
  /** The expression does not parse (filtrex grammar). */
  syntax: 'FILTER_SYNTAX',
  /** The expression calls a function the language does not have. */
  unknownFunction: 'FILTER_UNKNOWN_FUNCTION',
  /** The right side of `~=` is not a string literal, so it could not be checked at creation. */
  dynamicPattern: 'FILTER_DYNAMIC_PATTERN',
  /** The pattern is not valid RE2 syntax (backreferences and lookarounds are not RE2). */
  invalidPattern: 'FILTER_INVALID_PATTERN',
  /** The pattern is longer than TRIGGER_FILTER_MAX_PATTERN_CHARS or compiles to more than TRIGGER_FILTER_MAX_PATTERN_PROGRAM instructions. */
  patternTooLarge: 'FILTER_PATTERN_TOO_LARGE',
  /** At fire time: the text matched by `~=` is longer than TRIGGER_FILTER_MAX_INPUT_CHARS. */
  inputTooLong: 'FILTER_INPUT_TOO_LONG',
  /** At fire time: the expression failed on the event (e.g. `price < 300` where price is text). */
  evaluationFailed: 'FILTER_EVALUATION_FAILED',
} as const satisfies Record<string, keyof typeof filterErrorCatalogue>;
export type FilterErrorCode = (typeof FilterErrorCodes)[keyof typeof FilterErrorCodes];

export class FilterError extends NamedError {
  constructor(
    readonly code: FilterErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Limits on the regular expressions of filters; every one is a TRIGGER_FILTER_* setting. */
export interface FilterLimits {
  /** Longest pattern of `~=`, in characters. */
  maxPatternChars: number;
  /** Most instructions a pattern may compile to (RE2 program size): the matching cost is at most this times the input length. */
  maxPatternProgram: number;
  /** Longest text `~=` matches, in characters; a longer one is an evaluation error. */
  maxInputChars: number;
}

/** The settings' defaults (config.ts), for callers that have no configuration at hand. */
export const DEFAULT_FILTER_LIMITS: FilterLimits = {
  maxPatternChars: 1_000,
  maxPatternProgram: 500,
  maxInputChars: 256 * 1024,
};
