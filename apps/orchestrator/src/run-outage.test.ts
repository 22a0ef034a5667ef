import { DEPENDENCY_UNAVAILABLE, PlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { isOutage } from './run-outage.js';

describe('isOutage', () => {
  it('is true for an unreachable or slow dependency', () => {
    expect(isOutage(new PlatformError('unavailable', 'UNAVAILABLE', 'memory is down'))).toBe(true);
    expect(isOutage(new PlatformError('unavailable', DEPENDENCY_UNAVAILABLE, 'its database is down'))).toBe(true);
    expect(isOutage(new PlatformError('deadline_exceeded', 'DEADLINE_EXCEEDED', 'too slow'))).toBe(true);
    expect(isOutage(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
  });

  it("is false for what is the run's own failure", () => {
    expect(isOutage(new PlatformError('invalid_argument', 'BAD', 'bad input'))).toBe(false);
    expect(isOutage(new PlatformError('internal', 'INTERNAL', 'bug'))).toBe(false);
    expect(isOutage(new TypeError('x is undefined'))).toBe(false);
  });
});
