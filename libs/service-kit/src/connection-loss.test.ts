import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from './connection-loss.js';
import { PlatformError } from './errors.js';
import { DEPENDENCY_UNAVAILABLE, fromGrpcError, toGrpcError } from './grpc-status.js';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('isConnectionLoss', () => {
  it('recognises lost and refused connections, and a PostgreSQL going away', () => {
    expect(isConnectionLoss(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isConnectionLoss(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isConnectionLoss(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isConnectionLoss(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isConnectionLoss(withCode('connection failure', '08006'))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLoss(new Error('wrapped', { cause: withCode('read ECONNRESET', 'ECONNRESET') }))).toBe(true);
  });

  it('leaves bugs and bad statements alone', () => {
    expect(isConnectionLoss(new TypeError('x is undefined'))).toBe(false);
    expect(isConnectionLoss(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isConnectionLoss(withCode('syntax error', '42601'))).toBe(false);
    expect(isConnectionLoss('ECONNRESET')).toBe(false);
  });
});

describe('a lost dependency at the gRPC edge', () => {
  it('is UNAVAILABLE with a code and a retry-after, not an internal error', () => {
    const sent = toGrpcError(withCode('read ECONNRESET', 'ECONNRESET'));
    expect(sent.code).toBe(status.UNAVAILABLE);
    const received = fromGrpcError(sent);
    expect(received).toBeInstanceOf(PlatformError);
    expect(received).toMatchObject({ kind: 'unavailable', code: DEPENDENCY_UNAVAILABLE, retryAfterSeconds: 1 });
    expect(received.message).not.toContain('ECONNRESET'); // nothing internal reaches the caller
  });

  it('keeps any other unknown error internal', () => {
    expect(toGrpcError(new Error('boom'))).toMatchObject({ code: status.INTERNAL, details: 'internal error' });
  });
});
