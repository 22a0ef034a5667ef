import { ModelError } from '@platform/agent-loop';
import { expect } from 'vitest';

/** Resolves to the ModelError the call failed with; fails the test if it succeeded or threw anything else. */
export async function modelFailure(call: Promise<unknown>): Promise<ModelError> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ModelError);
  return outcome as ModelError;
}
