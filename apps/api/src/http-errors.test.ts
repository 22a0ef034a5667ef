import { PlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { toHttpError } from './http-errors.js';

describe('toHttpError', () => {
  it("answers the codes whose HTTP status is not their gRPC status's with their own: 412, 428, 410", () => {
    const stale = new PlatformError('failed_precondition', 'STALE_REVISION', 'STALE_REVISION: revision 3 is not 4');
    expect(toHttpError(stale)).toMatchObject({ status: 412, body: { error: { code: 'STALE_REVISION' } } });
    const gone = new PlatformError('failed_precondition', 'AGENT_DELETED', 'AGENT_DELETED: support-bot');
    expect(toHttpError(gone).status).toBe(410);
    expect(toHttpError(new PlatformError('failed_precondition', 'OTHER', 'x')).status).toBe(409);
  });

  it('takes the code a status message starts with when the status came without one (its bare name)', () => {
    const bare = new PlatformError('failed_precondition', 'FAILED_PRECONDITION', 'STALE_REVISION: revision 3 is not 4');
    expect(toHttpError(bare)).toMatchObject({ status: 412, body: { error: { code: 'STALE_REVISION' } } });
    const plain = new PlatformError('not_found', 'NOT_FOUND', 'nothing here');
    expect(toHttpError(plain)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    // A code of the service's own is kept, whatever its message says.
    const own = new PlatformError('not_found', 'AGENT_NOT_FOUND', 'RUN_NOT_FOUND: looks like a code');
    expect(toHttpError(own).body.error.code).toBe('AGENT_NOT_FOUND');
  });
});
