import { describe, expect, it } from 'vitest';
import { addUsage, ZERO_USAGE } from './model-port.js';

describe('addUsage', () => {
  it('sums each count and leaves ZERO_USAGE untouched', () => {
    const total = addUsage(addUsage(ZERO_USAGE, { inputTokens: 3, outputTokens: 2, totalTokens: 5 }), {
      inputTokens: 1,
      outputTokens: 1,
      totalTokens: 2,
    });
    expect(total).toEqual({ inputTokens: 4, outputTokens: 3, totalTokens: 7 });
    expect(ZERO_USAGE).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});
