import { describe, expect, it } from 'vitest';
import { PlatformError } from './errors.js';
import { fromGrpcError, toGrpcError } from './grpc-status.js';

describe('error details at the gRPC edge', () => {
  it('carry any Unicode a client wrote (metadata holds printable ASCII only) and read back unchanged', () => {
    const details = {
      issues: [{ field: 'trigger.filter', message: '"(café…" is not valid \u{1F600} \ud800 \u0000 end' }],
    };
    const sent = toGrpcError(new PlatformError('invalid_argument', 'INVALID_TASK_SPEC', 'bad', { details }));
    const raw = sent.metadata!.get('platform-error-details')[0] as string;
    expect(raw).toMatch(/^[\x20-\x7e]*$/);
    expect(fromGrpcError(sent).details).toEqual(details);
  });
});
