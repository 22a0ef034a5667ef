import { ToolSdkError } from './tool-sdk-error.js';
/**
 * Thrown by a handler to fail a call with a message meant for the model ("division by zero",
 * "no flights on that date"). Any other exception is treated as a bug: logged in full, and the
 * caller gets a generic message so internals never leak into prompts.
 */
export class ToolFailure extends ToolSdkError {
  constructor(
    message: string,
    /** `invalid` when the arguments were acceptable to the schema but make no sense; default `failed`. */
    readonly status: 'failed' | 'invalid' = 'failed',
  ) {
    super(message);
  }
}
