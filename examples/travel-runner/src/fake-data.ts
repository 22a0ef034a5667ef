import { createHash } from 'node:crypto';

/**
 * A whole number in `[0, range)` fixed by `parts`: the example's made-up flights and forecasts come
 * from it, so the same question always gets the same answer (and tests can assert it).
 */
export function fakeNumber(range: number, ...parts: string[]): number {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest();
  return digest.readUInt32BE(0) % range;
}

/** Says, in every result, that the data is invented; the model passes that on instead of presenting it as real. */
export const FAKE_DATA_NOTICE = 'Example data from the travel-runner example: made up, not real.';
