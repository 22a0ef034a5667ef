import { errors, type PromiseClient } from '@platform/service-kit';
import type { orchestratorV1 } from '@platform/proto';
import { describe, expect, it } from 'vitest';
import { useOrchestratorEdgeApp } from './test-support/orchestrator-edge-app.js';

// The operator role at the HTTP edge: who may send Platform-Tenant and reach /v1/admin. The
// routes' data paths run against the real platform in test/e2e/src/platformctl.test.ts.
const SECRET = 'operator-test-secret-at-least-32-chars';
const runsAsked: string[] = [];
const orchestrator = {
  getRun: async (request: orchestratorV1.GetRunRequest) => {
    runsAsked.push(request.tenantId);
    if (request.tenantId !== 'acme') throw errors.notFound('RUN_NOT_FOUND', 'no run');
    return {
      runId: 'run_1',
      conversationId: 'c',
      status: 'completed',
      stopReason: 'final_answer',
      createdAt: new Date(0),
      resultJson: 'null',
      transcriptJson: '[]',
      traceId: 'ab'.repeat(16),
      source: 'user',
      profile: 'default',
    };
  },
} as unknown as PromiseClient<orchestratorV1.OrchestratorServiceClient>;
const { inject, bearer } = useOrchestratorEdgeApp(SECRET, orchestrator);

describe('operators', () => {
  it('an operator reads another tenant with Platform-Tenant; the run carries its trace id', async () => {
    const response = await inject({
      method: 'GET',
      url: '/v1/runs/run_1',
      headers: { authorization: await bearer({ tenant: 'ops', roles: ['ops-role'] }), 'platform-tenant': 'acme' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ runId: 'run_1', traceId: 'ab'.repeat(16) });
    expect(runsAsked.at(-1)).toBe('acme');
  });

  it('refuses Platform-Tenant from a token without the role, or on a request that changes something', async () => {
    const user = await inject({
      method: 'GET',
      url: '/v1/runs/run_1',
      headers: { authorization: await bearer({ tenant: 'globex', roles: ['viewer'] }), 'platform-tenant': 'acme' },
    });
    expect(user.statusCode).toBe(403);
    expect(user.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    const write = await inject({
      method: 'DELETE',
      url: '/v1/runs/run_1',
      headers: { authorization: await bearer({ tenant: 'ops', roles: ['ops-role'] }), 'platform-tenant': 'acme' },
    });
    expect(write.statusCode).toBe(403);
    const bad = await inject({
      method: 'GET',
      url: '/v1/runs/run_1',
      headers: {
        authorization: await bearer({ tenant: 'ops', roles: ['ops-role'] }),
        'platform-tenant': 'not a tenant!',
      },
    });
    expect(bad.json()).toMatchObject({ error: { code: 'INVALID_TENANT' } });
  });

  it('keeps /v1/admin for operators', async () => {
    for (const url of ['/v1/admin/credential-keys', '/v1/admin/memory/dead-letters']) {
      const user = await inject({ method: 'GET', url, headers: { authorization: await bearer({ tenant: 'acme' }) } });
      expect(user.statusCode, url).toBe(403);
    }
    const operator = await bearer({ tenant: 'ops', roles: ['ops-role'] });
    expect(
      (await inject({ method: 'GET', url: '/v1/admin/credential-keys', headers: { authorization: operator } })).json(),
    ).toMatchObject({ error: { code: 'CREDENTIALS_UNAVAILABLE' } });
    expect(
      (
        await inject({
          method: 'GET',
          url: '/v1/admin/memory/dead-letters?limit=0',
          headers: { authorization: operator },
        })
      ).json(),
    ).toMatchObject({ error: { code: 'INVALID_QUERY' } });
  });

  it('refuses a malformed roles claim', async () => {
    const response = await inject({
      method: 'GET',
      url: '/v1/runs/run_1',
      headers: { authorization: await bearer({ tenant: 'acme', roles: 'ops-role' }) },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({
      error: { code: 'INVALID_TOKEN', message: expect.stringContaining('"roles"') },
    });
  });
});
