import { describe, expect, it } from 'vitest';
import { apiErrorOf, remedyFor } from './api-error.js';
import { callerHeaders } from './http-client.js';

describe('callerHeaders', () => {
  it('sends the token, and Platform-Tenant on reads only', () => {
    const operator = { token: 't0k', viewTenant: 'acme' };
    expect(callerHeaders(operator, 'GET')).toEqual({ authorization: 'Bearer t0k', 'platform-tenant': 'acme' });
    expect(callerHeaders(operator, 'get')).toEqual({ authorization: 'Bearer t0k', 'platform-tenant': 'acme' });
    expect(callerHeaders(operator, 'POST')).toEqual({ authorization: 'Bearer t0k' });
    expect(callerHeaders({ token: 't0k' }, 'GET')).toEqual({ authorization: 'Bearer t0k' });
  });
});

describe('apiErrorOf', () => {
  it("reads the api's error body, and keeps the status of anything else", async () => {
    const typed = await apiErrorOf(
      new Response(
        JSON.stringify({ error: { code: 'RUN_NOT_FOUND', message: 'no run', details: { runId: 'run_1' } } }),
        { status: 404 },
      ),
    );
    expect(typed).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND', message: 'no run', details: { runId: 'run_1' } });
    expect(remedyFor(typed)).toContain('another tenant');
    const bare = await apiErrorOf(new Response('upstream timed out', { status: 504, statusText: 'Gateway Timeout' }));
    expect(bare).toMatchObject({ status: 504, code: 'HTTP_504', message: 'upstream timed out' });
    expect(remedyFor(bare)).toContain('failed');
  });
});
