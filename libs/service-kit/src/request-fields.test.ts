import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isPlatformError } from './errors.js';
import { parseOrReject, tenantOf } from './request-fields.js';

function rejection(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('parseOrReject', () => {
  it('returns the parsed value', () => {
    expect(parseOrReject(z.coerce.number(), '7', 'INVALID_N', 'n')).toBe(7);
  });

  it('rejects with invalid_argument, the code, and the field named with the first issue', () => {
    const err = rejection(() => parseOrReject(z.string().max(2, 'too long'), 'abc', 'INVALID_NAME', 'name'));
    expect(isPlatformError(err)).toBe(true);
    expect(err).toMatchObject({ kind: 'invalid_argument', code: 'INVALID_NAME', message: 'name: too long' });
  });
});

describe('tenantOf', () => {
  it('passes a tenant id through', () => {
    expect(tenantOf({ tenantId: 'acme' })).toBe('acme');
  });

  it('rejects a malformed one as INVALID_TENANT_ID naming tenant_id', () => {
    const err = rejection(() => tenantOf({ tenantId: '' }));
    expect(err).toMatchObject({ kind: 'invalid_argument', code: 'INVALID_TENANT_ID' });
    expect((err as Error).message).toMatch(/^tenant_id: /);
  });
});
