import { z } from 'zod';

/**
 * How a tool call ended. A closed set shared by runners, the loop engine and the record of a run:
 * - `success`   the tool ran and returned a result
 * - `failed`    the tool ran and failed, or no runner could take the call
 * - `timeout`   no answer before the call's deadline
 * - `invalid`   unknown tool, unparseable arguments, or arguments that violate the input schema
 * - `denied`    an approval step or policy refused the call
 * - `cancelled` the run was cancelled before the call finished
 * - `skipped`   a guard decided not to run the call (e.g. a repeated identical call)
 * - `blocked`   the call was not run because the loop stopped first (turn limit, deadline)
 */
export const ToolResultStatus = z.enum([
  'success',
  'failed',
  'timeout',
  'invalid',
  'denied',
  'cancelled',
  'skipped',
  'blocked',
]);
export type ToolResultStatus = z.infer<typeof ToolResultStatus>;
